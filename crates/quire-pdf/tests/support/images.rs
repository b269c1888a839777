//! Images in tests of PDFs, shared by the PDF crate's tests and the API's:
//! a huge PNG made cheaply (for the image limits), and the images a PDF
//! holds as `pdfimages -list` lists them.

/// A valid PNG of `side`×`side` black 8-bit grey pixels, made without
/// holding or compressing its pixels: 50 rows are compressed into a deflate
/// block of their own, and that block repeated for the others (30000 a side:
/// under 0.9 MiB, 900 MB once decoded).
pub fn huge_png(side: u32) -> Vec<u8> {
    const ROWS: u32 = 50;
    assert_eq!(side % ROWS, 0, "whole blocks of {ROWS} rows");
    let rows = vec![0u8; (side as usize + 1) * ROWS as usize];
    let mut compress = flate2::Compress::new(flate2::Compression::best(), false);
    let mut block = Vec::with_capacity(rows.len() / 100 + 1024);
    compress
        .compress_vec(&rows, &mut block, flate2::FlushCompress::Sync)
        .expect("compress the rows");
    assert_eq!(compress.total_in(), rows.len() as u64, "the rows compressed whole");
    let mut data = Vec::with_capacity(block.len() * (side / ROWS) as usize + 8);
    data.extend([0x78, 0x01]);
    for _ in 0..side / ROWS {
        data.extend_from_slice(&block);
    }
    // The last, empty block, then the Adler-32 of that many zero bytes.
    data.extend([0x03, 0x00]);
    let zeros = u64::from(side) * (u64::from(side) + 1);
    data.extend(((((zeros % 65521) as u32) << 16) | 1).to_be_bytes());
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], body: &[u8]| {
        png.extend((body.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(body);
        png.extend(kind);
        png.extend(body);
        png.extend(crc.sum().to_be_bytes());
    };
    let mut header = side.to_be_bytes().repeat(2);
    header.extend([8, 0, 0, 0, 0]);
    chunk(b"IHDR", &header);
    chunk(b"IDAT", &data);
    chunk(b"IEND", &[]);
    png
}

/// The images (not their masks) in the output of `pdfimages -list`: width
/// and height.
pub fn listed_images(listing: &str) -> Vec<(u32, u32)> {
    listing
        .lines()
        .skip(2)
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            if fields.get(2) != Some(&"image") {
                return None;
            }
            Some((fields.get(3)?.parse().ok()?, fields.get(4)?.parse().ok()?))
        })
        .collect()
}
