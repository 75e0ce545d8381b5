"""Server-rendered pages: one module per area (tournaments, ladders, matches, decks), each a set of thin
views over the apps' selectors and services. `live.js` asks for fragments with the `X-Live: 1` header;
`wants_fragment` tells a view to answer with the fragment template alone."""
