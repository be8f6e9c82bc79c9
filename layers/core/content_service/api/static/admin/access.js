// What the users and roles pages share: the page's data block, the roles from
// `GET /api/v1/roles`, how a role, a rule and a grant read in words, and the role choices of a
// grant editor (a checkbox per role, with its locales). Service text goes in with textContent.

import { api } from "./common.js";

export const data = JSON.parse(document.getElementById("access-data").textContent);
export const EVERY_WORKSPACE = "*";

export async function loadRoles() {
  const body = await api("GET", "/api/v1/roles");
  return body.items;
}

export function list(values) {
  return String(values || "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}

export function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined && text !== null) made.textContent = text;
  if (className) made.className = className;
  return made;
}

export function workspaceName(id) {
  const found = data.workspaces.find((w) => w.id === id);
  return found ? found.name : `workspace ${id}`;
}

export function grantText(grant, roles) {
  const role = roles.find((r) => r.id === grant.role);
  const name = role ? role.name : grant.role;
  return grant.locales && grant.locales.length ? `${name} (${grant.locales.join(", ")})` : name;
}

export function ruleText(rule) {
  const types = rule.contentTypes.includes("*") ? "every type" : rule.contentTypes.join(", ");
  const parts = [`${rule.actions.join(", ")} on ${types}`];
  if (rule.locales) parts.push(`in ${rule.locales.join(", ")}`);
  if (rule.fields) parts.push(`changing only ${rule.fields.join(", ")}`);
  if (rule.ownEntriesOnly) parts.push("of entries they created");
  return parts.join(" ");
}

export function fillWorkspaces(select) {
  select.replaceChildren(
    ...data.workspaces.map((w) => {
      const option = element("option", w.id === EVERY_WORKSPACE ? w.name : `${w.name} (${w.slug})`);
      option.value = w.id;
      return option;
    }),
  );
}

// One checkbox per role, each with a locales field; `prefix` keeps the ids unique per editor.
// Administrator is offered in all workspaces only, as the service takes it.
export function renderRoleChoices(container, roles, prefix, workspaceId, granted = []) {
  container.replaceChildren();
  for (const role of roles) {
    if (role.administrator && workspaceId !== EVERY_WORKSPACE) continue;
    const held = granted.find((g) => g.role === role.id);
    const row = element("div", null, "role-choice");
    row.dataset.role = role.id;
    const check = element("input");
    check.type = "checkbox";
    check.id = `${prefix}-role-${role.id}`;
    check.checked = Boolean(held);
    const label = element("label", null, "check");
    label.htmlFor = check.id;
    label.append(check, ` ${role.name}`);
    const help = element("p", role.description, "help");
    const localesId = `${prefix}-locales-${role.id}`;
    const localesLabel = element("label", `Locales for ${role.name}`, "small");
    localesLabel.htmlFor = localesId;
    const locales = element("input");
    locales.id = localesId;
    locales.type = "text";
    locales.autocomplete = "off";
    locales.spellcheck = false;
    locales.placeholder = role.takesLocales ? "de, fr (required)" : "empty: every locale";
    locales.value = held && held.locales ? held.locales.join(", ") : "";
    row.append(label, help, localesLabel, locales);
    container.append(row);
  }
}

export function chosenGrants(container) {
  const grants = [];
  for (const row of container.querySelectorAll(".role-choice")) {
    if (!row.querySelector('input[type="checkbox"]').checked) continue;
    const locales = list(row.querySelector('input[type="text"]').value);
    grants.push(locales.length ? { role: row.dataset.role, locales } : { role: row.dataset.role });
  }
  return grants;
}
