// Predicates for the classic JSON shapes of docs/contracts.md (and of the GraphQL answers), used by checks.
const LINK = /^\/participant\/\d+$/;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isText = (v) => typeof v === 'string';
const isLink = (v) => isText(v) && LINK.test(v);
const isTime = (v) => isText(v) && !Number.isNaN(Date.parse(v));
const isId = (v) => (typeof v === 'number' && Number.isInteger(v) && v > 0) || (isText(v) && /^\d+$/.test(v));

export const shape = {
  participant: (p) => isObject(p) && isId(p.id) && isText(p.name) && p.link === `/participant/${p.id}`,
  friend: (f) => isObject(f) && isId(f.id) && isLink(f.from) && isLink(f.to),
  outbound: (o) => isObject(o) && isLink(o.from) && isTime(o.occurred) && isText(o.subject) && isText(o.story),
  inbound: (i) => isObject(i) && isLink(i.from) && isLink(i.to) && isTime(i.occurred)
    && isText(i.subject) && isText(i.story),
  error: (e, status) => isObject(e) && isText(e.error) && e.error.length > 0 && isText(e.message)
    && e.status === status,
  // the GraphQL API's (ids are GraphQL IDs: the number as a string; feed items as the classic client selects them)
  gqlRef: (p) => isObject(p) && isText(p.id) && /^\d+$/.test(p.id),
  gqlFriend: (p) => isObject(p) && isText(p.id) && /^\d+$/.test(p.id) && isText(p.name) && p.name.length > 0,
  gqlPost: (o) => isObject(o) && isTime(o.occurred) && isText(o.subject) && isText(o.story),
  arrayOf: (items, itemShape) => Array.isArray(items) && items.every((x) => itemShape(x)),
  links: (items) => Array.isArray(items) && items.every(isLink),
};

// true when the feed items are sorted newest first (the classic feed order)
export function newestFirst(items) {
  for (let i = 1; i < items.length; i++) {
    if (Date.parse(items[i - 1].occurred) < Date.parse(items[i].occurred)) return false;
  }
  return true;
}
