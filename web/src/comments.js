// Where a change request's comments are shown in its review, as pure
// functions (no DOM): the general ones in the discussion; the ones on a
// page with that page's changes: on the page as a whole, right under the
// block they name while the page still has that block (by its `key`, or a
// heading's anchor for older comments), or apart, as comments on earlier
// versions of blocks. Tested by `tests/comments.test.mjs`.

/// A change request's comments by what they are about, each list in the
/// order given: `general` (about no page) and `byPage` (a page's id to
/// the comments about it).
export function commentsByPage(comments) {
  const general = [];
  const byPage = new Map();
  for (const comment of comments ?? []) {
    const pageId = comment.target?.page?.id;
    if (!pageId) {
      general.push(comment);
      continue;
    }
    if (!byPage.has(pageId)) byPage.set(pageId, []);
    byPage.get(pageId).push(comment);
  }
  return { general, byPage };
}

/// The index of the item of a document diff (`diff.js`) each node id
/// names: the key of a block of the new version, or else the anchor of a
/// heading there. Removed blocks are named by nothing.
export function blockPlaces(items) {
  const places = new Map();
  items.forEach((item, index) => {
    if (item.key && !places.has(item.key)) places.set(item.key, index);
  });
  items.forEach((item, index) => {
    if (item.anchor && !places.has(item.anchor)) places.set(item.anchor, index);
  });
  return places;
}

/// Where a page's comments go: `onPage` (about no node), `underBlock` (an
/// item's index to the comments naming its block) and `earlier` (naming a
/// node the page no longer has: a block edited since, a heading renamed).
/// `items` are the page's document diff's items, or null while unknown:
/// comments on nodes then go nowhere yet.
export function placeComments(comments, items) {
  const onPage = [];
  const underBlock = new Map();
  const earlier = [];
  const places = items ? blockPlaces(items) : null;
  for (const comment of comments ?? []) {
    const node = comment.target?.node?.id;
    if (!node) {
      onPage.push(comment);
      continue;
    }
    if (!places) continue;
    const index = places.get(node);
    if (index === undefined) earlier.push(comment);
    else {
      if (!underBlock.has(index)) underBlock.set(index, []);
      underBlock.get(index).push(comment);
    }
  }
  return { onPage, underBlock, earlier };
}

/// Whether a node id is a key Quire gave a block (`b` and 16 hexadecimal
/// digits, or an HTML block's `quire-html-N`) rather than an anchor a
/// person can read.
export function isBlockKey(id) {
  return /^(b[0-9a-f]{16}(-\d+)?|quire-html-\d+)$/.test(id);
}
