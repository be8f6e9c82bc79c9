// The REST API reference: Swagger UI (vendored, see docs/api.md) over the app's own OpenAPI
// document. No validator badge (it would call validator.swagger.io) and nothing else from
// another origin; "Try it out" calls this origin with the browser's sign-in cookie, if any.
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-spec"),
    domNode: root,
    // No deep links: Swagger UI puts their anchors inside each operation's toggle button.
    deepLinking: false,
    validatorUrl: null,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
  // Code examples scroll inside their box: make each one focusable so that a keyboard can
  // scroll it too (Swagger UI renders them as it opens each operation).
  function focusableExamples() {
    root.querySelectorAll("pre:not([tabindex])").forEach(function (block) {
      block.setAttribute("tabindex", "0");
    });
  }
  new MutationObserver(focusableExamples).observe(root, { childList: true, subtree: true });
})();
