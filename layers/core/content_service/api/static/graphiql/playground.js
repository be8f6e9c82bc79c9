// The GraphQL playground: GraphiQL (vendored, see docs/graphql.md) against /api/v1/graphql.
// Queries carry the headers of GraphiQL's header editor: paste a token as
// {"Authorization": "Bearer cs_..."}. A signed-in user's session cookie works as well, so for
// them the editor starts empty. Nothing is loaded from another origin.
(function () {
  "use strict";
  var root = document.getElementById("graphiql");
  var signedIn = root.getAttribute("data-signed-in") === "true";
  var fetcher = GraphiQL.createFetcher({ url: root.getAttribute("data-endpoint") });
  var headers = signedIn ? "{}" : '{\n  "Authorization": "Bearer "\n}';
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultHeaders: headers,
      defaultEditorToolsVisibility: "headers",
      shouldPersistHeaders: false,
      defaultQuery: "# Paste a token after Bearer in the Headers tab below, then run:\n{\n  __typename\n}\n",
    })
  );
})();
