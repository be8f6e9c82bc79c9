// The GraphQL playground: GraphiQL (vendored, see docs/graphql.md) against /api/v1/graphql.
//
// Queries and the schema's introspection carry the headers of GraphiQL's Headers editor, so
// the schema (and with it autocomplete and the docs) is the one of the token pasted there:
// {"Authorization": "Bearer cs_..."}. GraphiQL introspects once, when it loads; here the
// schema is fetched again whenever the headers settle on a different valid value, and not
// at all while there is neither a token nor a session (it would only fail with a 401).
// A signed-in user's session cookie authenticates too, so for them the editor starts empty.
// Nothing is loaded from another origin.
(function () {
  "use strict";
  var root = document.getElementById("graphiql");
  var url = root.getAttribute("data-endpoint");
  var signedIn = root.getAttribute("data-signed-in") === "true";
  var SETTLE_MS = 400;
  var initialHeaders = signedIn ? "{}" : '{\n  "Authorization": "Bearer "\n}';

  // The headers as a stable string, or null when the editor's text is not a JSON object.
  function normalise(text) {
    var parsed;
    try {
      parsed = text.trim() ? JSON.parse(text) : {};
    } catch (error) {
      return null;
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
    var keys = Object.keys(parsed).sort();
    return JSON.stringify(keys.map(function (k) { return [k.toLowerCase(), parsed[k]]; }));
  }

  // Whether these headers can authenticate: a session, or a bearer with something after it.
  function canAuthenticate(text) {
    if (signedIn) return true;
    try {
      var parsed = JSON.parse(text);
      return Object.keys(parsed).some(function (name) {
        var value = parsed[name];
        return name.toLowerCase() === "authorization" && typeof value === "string" &&
          /^Bearer\s+\S+/i.test(value.trim());
      });
    } catch (error) {
      return false;
    }
  }

  function schemaFor(text) {
    // undefined: GraphiQL introspects; null: it does not (and shows no error).
    return canAuthenticate(text) ? undefined : null;
  }

  function Playground() {
    var fetcherState = React.useState(function () {
      return { fetcher: GraphiQL.createFetcher({ url: url }), schema: schemaFor(initialHeaders) };
    });
    var state = fetcherState[0];
    var setState = fetcherState[1];
    var last = React.useRef(normalise(initialHeaders));
    var timer = React.useRef(null);

    function onEditHeaders(text) {
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(function () {
        var key = normalise(text);
        if (key === null || key === last.current) return;
        last.current = key;
        // A new fetcher makes GraphiQL introspect again, with the headers now in the editor.
        setState({ fetcher: GraphiQL.createFetcher({ url: url }), schema: schemaFor(text) });
      }, SETTLE_MS);
    }

    return React.createElement(GraphiQL, {
      fetcher: state.fetcher,
      schema: state.schema,
      defaultHeaders: initialHeaders,
      onEditHeaders: onEditHeaders,
      defaultEditorToolsVisibility: "headers",
      shouldPersistHeaders: false,
      defaultQuery: "# A token in Headers below, then Run (Ctrl-Enter):\n{\n  __typename\n}\n",
    });
  }

  // CodeMirror's hidden text areas get the names of the panes they edit, for screen readers.
  function name(selector, label) {
    var area = root.querySelector(selector + " textarea");
    if (area && area.getAttribute("aria-label") !== label) area.setAttribute("aria-label", label);
  }
  function nameEditors() {
    name(".graphiql-query-editor", "Query editor");
    name(".graphiql-editor-tool .graphiql-editor:nth-of-type(1)", "Variables editor");
    name(".graphiql-editor-tool .graphiql-editor:nth-of-type(2)", "Headers editor");
    name(".graphiql-response", "Response");
  }
  new MutationObserver(nameEditors).observe(root, { childList: true, subtree: true });

  ReactDOM.createRoot(root).render(React.createElement(Playground));
})();
