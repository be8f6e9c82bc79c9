// Rich text fields: Quill (vendored, /static/vendor/quill) with this page's own toolbar of
// labelled buttons. Quill keeps only the formats the service's allow-list keeps, and gives the
// field's value as semantic HTML; the service sanitises it again on save (docs/content.md).
// Tab leaves the editor (Quill's Tab bindings are off), so the keyboard is never trapped.

export const FORMATS = ["bold", "italic", "underline", "strike", "header", "list", "blockquote", "code-block", "link"];
const LINK = /^(https?:\/\/\S+|mailto:\S+|tel:\S+|\/\S*)$/i;
const TAB_BINDINGS = ["tab", "indent", "outdent", "indent code-block", "outdent code-block", "remove tab"];

// Arrow keys move between the toolbar's controls; only one of them is in the Tab order.
function rovingToolbar(toolbar) {
  const items = () => [...toolbar.querySelectorAll("button, select")];
  const setCurrent = (current) => {
    for (const item of items()) item.tabIndex = item === current ? 0 : -1;
  };
  setCurrent(items()[0]);
  toolbar.addEventListener("focusin", (event) => setCurrent(event.target));
  toolbar.addEventListener("keydown", (event) => {
    const list = items();
    const index = list.indexOf(document.activeElement);
    if (index < 0) return;
    const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: list.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = list[(moves[event.key] + list.length) % list.length];
    setCurrent(next);
    next.focus();
  });
}

class LinkDialog {
  constructor() {
    this.dialog = document.getElementById("link-dialog");
    this.form = document.getElementById("link-form");
    this.input = document.getElementById("link-url");
    this.error = document.getElementById("link-error");
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const url = this.input.value.trim();
      if (!LINK.test(url)) {
        this.error.textContent = "Enter an address starting with https://, http://, mailto: or tel:, or a path starting with /.";
        this.error.hidden = false;
        this.input.setAttribute("aria-invalid", "true");
        this.input.focus();
        return;
      }
      this.dialog.close("apply");
    });
  }

  // Resolves to {action: "apply", url} | {action: "remove"} | {action: "cancel"}.
  ask(current) {
    this.input.value = current || "https://";
    this.error.hidden = true;
    this.input.removeAttribute("aria-invalid");
    document.getElementById("link-remove").hidden = !current;
    return new Promise((resolve) => {
      const done = () => {
        this.dialog.removeEventListener("close", done);
        const action = this.dialog.returnValue || "cancel";
        resolve({ action, url: this.input.value.trim() });
      };
      this.dialog.returnValue = "";
      this.dialog.addEventListener("close", done);
      this.dialog.showModal();
      this.input.focus();
      this.input.select();
    });
  }
}

let linkDialog = null;

export class RichText {
  constructor(wrap, html, onChange) {
    const Quill = window.Quill;
    const toolbar = wrap.querySelector(".rt-toolbar");
    const host = wrap.querySelector(".rt-editor");
    const bindings = Object.fromEntries(TAB_BINDINGS.map((name) => [name, null]));
    linkDialog = linkDialog || new LinkDialog();
    this.quill = new Quill(host, {
      formats: FORMATS,
      modules: {
        toolbar: { container: toolbar, handlers: { link: () => this.editLink() } },
        keyboard: { bindings },
      },
    });
    const root = this.quill.root;
    root.setAttribute("role", "textbox");
    root.setAttribute("aria-multiline", "true");
    root.setAttribute("aria-labelledby", host.dataset.labelledby);
    root.setAttribute("aria-describedby", host.dataset.describedby);
    if (host.hasAttribute("data-required")) root.setAttribute("aria-required", "true");
    root.id = `${host.id}-text`;
    this.element = root;
    this.setHtml(html);
    this.initial = this.value() || "";
    rovingToolbar(toolbar);
    // Without a selection Quill's toolbar shows no paragraph style at all; show the default.
    const styles = [...toolbar.querySelectorAll("select")];
    const showDefault = () => {
      for (const select of styles) if (select.selectedIndex < 0) select.selectedIndex = 0;
    };
    this.quill.on("editor-change", showDefault);
    showDefault();
    for (const control of toolbar.querySelectorAll("[data-needs-script]")) control.disabled = false;
    this.quill.on("text-change", () => onChange());
  }

  setHtml(html) {
    const delta = this.quill.clipboard.convert({ html: html || "" });
    this.quill.setContents(delta, "silent");
    this.quill.history.clear();
  }

  value() {
    if (this.quill.getText().trim() === "" && this.quill.getLength() <= 1) return null;
    // Quill 2.0.3 writes every space of the text as `&nbsp;` in its semantic HTML, which
    // would stop lines from wrapping wherever the value is shown; a space typed as U+00A0
    // stays that character, so only Quill's own entities are turned back.
    return this.quill.getSemanticHTML().replaceAll("&nbsp;", " ");
  }

  focus() {
    this.quill.focus();
  }

  enable(on) {
    this.quill.enable(on);
  }

  async editLink() {
    const range = this.quill.getSelection(true);
    const current = this.quill.getFormat(range).link || "";
    const answer = await linkDialog.ask(current);
    this.quill.setSelection(range, "silent");
    if (answer.action === "remove") {
      this.quill.format("link", false, "user");
    } else if (answer.action === "apply") {
      if (range.length === 0 && !current) {
        this.quill.insertText(range.index, answer.url, "link", answer.url, "user");
        this.quill.setSelection(range.index + answer.url.length, 0, "silent");
      } else {
        this.quill.format("link", answer.url, "user");
      }
    }
    this.quill.focus();
  }
}

// Stored rich text shown read-only (a published version, the live entry): Quill turns the HTML
// into its own document, keeping only the formats above, so what is shown is never the stored
// markup itself.
export function showRichText(host, html) {
  const quill = new window.Quill(host, { formats: FORMATS, readOnly: true, modules: { toolbar: false } });
  quill.setContents(quill.clipboard.convert({ html: html || "" }), "silent");
  return quill;
}
