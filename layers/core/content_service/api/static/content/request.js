// Calls to the content API from the content pages: same-origin, with the session cookie (the
// browser adds Origin, which the origin guard checks on every write), acting in the page's
// workspace through X-Workspace-Id.

import { fetchJson } from "../admin/common.js";

// JSON text to put into a body as it is: a 64-bit integer JavaScript numbers would round, or
// the text a person typed into a JSON field.
export class Raw {
  constructor(text) {
    this.text = text;
  }
}

const NONCE = Math.random().toString(36).slice(2);

export function serialize(body, indent) {
  const raws = [];
  const text = JSON.stringify(
    body,
    (_key, value) => {
      if (value instanceof Raw) {
        raws.push(value.text);
        return `\u0000${NONCE}:${raws.length - 1}\u0000`;
      }
      return value;
    },
    indent,
  );
  const marker = new RegExp(`"\\\\u0000${NONCE}:(\\d+)\\\\u0000"`, "g");
  return text.replace(marker, (_match, index) => raws[Number(index)]);
}

// An integer past 2^53 as the service wrote it: JavaScript numbers would round it. Reads that
// show or compare values (`exact`) keep such an integer as its digits, a `Raw`.
function exactIntegers(_key, value, context) {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context && /^-?\d+$/.test(context.source)) {
    return new Raw(context.source);
  }
  return value;
}

export async function call(method, path, { body, workspaceId, exact = false } = {}) {
  const headers = { Accept: "application/json" };
  if (workspaceId) headers["X-Workspace-Id"] = workspaceId;
  const init = { method, credentials: "same-origin", headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = serialize(body);
  }
  return fetchJson(path, init, exact ? (text) => JSON.parse(text, exactIntegers) : JSON.parse);
}

// The field an API problem is about: `values.<field>`, `relations.<field>...` or `audiences`,
// with or without the `body.` of a request-validation error.
export function problemField(location) {
  const parts = String(location || "").replace(/^body\./, "").split(/[.[]/);
  if ((parts[0] === "values" || parts[0] === "relations") && parts[1]) return parts[1];
  if (parts[0] === "audiences") return "audiences";
  return null;
}

// `2026-11-24T05:00:23.757Z` as the pages write times: `2026-11-24 05:00:23 UTC`.
export function when(iso) {
  if (!iso) return "";
  return `${String(iso).slice(0, 19).replace("T", " ")} UTC`;
}

export function sentence(text) {
  const value = String(text || "");
  return value ? value[0].toUpperCase() + value.slice(1) : value;
}
