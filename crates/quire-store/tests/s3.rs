//! The S3 blob store against a real S3-compatible server: moto's
//! `moto_server` (`pip install 'moto[server]'`, which `.ci/run` does),
//! started on a free port for the test. The test fails, never skips, when
//! `moto_server` is missing.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt as _;
use object_store::{ObjectStore as _, ObjectStoreExt as _};
use quire_store::blobs::{BlobError, BlobStore, blob_hash};

/// A `moto_server` child process, killed when dropped.
struct Moto {
    child: Child,
    url: String,
}

impl Moto {
    async fn start() -> Moto {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "the S3 test needs moto_server on PATH (pip install 'moto[server]'), and it failed to start: {e}"
                )
            });
        let mut moto = Moto {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if client.get(&moto.url).send().await.is_ok() {
                return moto;
            }
            if let Ok(Some(status)) = moto.child.try_wait() {
                panic!("moto_server exited before answering: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not answer on {} within 60 s",
                moto.url
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Creates a bucket (object_store cannot; moto takes unsigned requests).
    async fn create_bucket(&self, bucket: &str) {
        let res = reqwest::Client::new()
            .put(format!("{}/{bucket}", self.url))
            .send()
            .await
            .expect("create bucket");
        assert!(res.status().is_success(), "creating bucket {bucket}: {}", res.status());
    }

    /// The settings `quire serve` would read from the environment.
    fn env(&self) -> Vec<(String, String)> {
        [
            ("AWS_ENDPOINT_URL", self.url.as_str()),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
            ("AWS_REGION", "us-east-1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn s3_blobs_are_content_addressed_and_idempotent() {
    let moto = Moto::start().await;
    moto.create_bucket("quire-blobs").await;
    let store = BlobStore::from_url_and_env("s3://quire-blobs/team/blobs", moto.env()).expect("open the S3 store");
    assert!(matches!(store, BlobStore::S3(_)), "{store:?}");

    let bytes = b"an image, say".to_vec();
    let hash = store.put(&bytes).await.expect("put");
    assert_eq!(hash, blob_hash(&bytes));
    assert_eq!(store.get(&hash).await.expect("get"), bytes);

    // The same layout as the local store: <prefix>/<first two digits>/<hash>,
    // seen through a client of its own.
    let direct = object_store::aws::AmazonS3Builder::new()
        .with_bucket_name("quire-blobs")
        .with_endpoint(&moto.url)
        .with_allow_http(true)
        .with_access_key_id("testing")
        .with_secret_access_key("testing")
        .with_region("us-east-1")
        .build()
        .expect("a direct client");
    let key = object_store::path::Path::from(format!("team/blobs/{}/{hash}", &hash[..2]));
    let raw = direct.get(&key).await.expect("the object is where the layout says");
    assert_eq!(raw.bytes().await.expect("object bytes").as_ref(), bytes.as_slice());

    // Putting the same bytes again is a no-op that names the same blob.
    assert_eq!(store.put(&bytes).await.expect("put again"), hash);
    let prefix = object_store::path::Path::from("team");
    let keys: Vec<_> = direct.list(Some(&prefix)).try_collect().await.expect("list");
    assert_eq!(keys.len(), 1, "{keys:?}");

    let other = store.put(b"other bytes").await.expect("put other");
    assert_ne!(other, hash);
    assert_eq!(store.get(&other).await.expect("get other"), b"other bytes");

    let missing = blob_hash(b"never stored");
    assert!(matches!(store.get(&missing).await, Err(BlobError::NotFound(h)) if h == missing));
    assert!(matches!(
        store.get("../../etc/passwd").await,
        Err(BlobError::NotFound(_))
    ));

    // A bucket that does not exist: a clear error naming the store.
    let nowhere = BlobStore::from_url_and_env("s3://no-such-bucket", moto.env()).expect("open");
    let err = nowhere.put(b"x").await.expect_err("no bucket");
    assert!(err.to_string().contains("s3://no-such-bucket"), "{err}");
}
