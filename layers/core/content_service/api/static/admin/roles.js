// The roles page (/roles): the roles from `GET /api/v1/roles` with their rules, a custom role
// made with the rules editor (`POST /api/v1/roles`) and deleted (`DELETE /api/v1/roles/{id}`).

import { api, confirmWith, installCreateForm, installDialogs, messageBoxes, rowButton, startPage } from "./common.js";
import { element, list, loadRoles, ruleText } from "./access.js";

const alertBox = document.getElementById("roles-alert");
const statusBox = document.getElementById("roles-status");
const roleList = document.getElementById("role-list");
const ruleRows = document.getElementById("rule-rows");
let ruleCount = 0;
const { fail, done } = messageBoxes(alertBox, statusBox);

function badges(role) {
  const shown = [];
  if (role.builtin) shown.push(element("span", "Built-in", "badge badge-neutral"));
  else shown.push(element("span", "Custom", "badge badge-info"));
  if (role.administrator) shown.push(element("span", "Administers the service", "badge badge-warn"));
  if (role.takesLocales) shown.push(element("span", "Given for locales", "badge badge-info"));
  return shown;
}

function roleCard(role) {
  const card = element("section", null, "card role-card");
  card.dataset.roleId = role.id;
  const heading = element("h2", role.name);
  heading.id = `role-${role.id}`;
  card.setAttribute("aria-labelledby", heading.id);
  const line = element("p", null, "state-line");
  line.append(...badges(role));
  card.append(heading, line, element("p", role.description || "", "lede"));
  const rules = element("ul", null, "rule-list");
  rules.append(...role.rules.map((rule) => element("li", ruleText(rule))));
  card.append(rules);
  if (!role.builtin) {
    const remove = rowButton("Delete", ` the role ${role.name}`);
    remove.addEventListener("click", () => deleteRole(role, remove));
    card.append(remove);
  }
  return card;
}

async function refresh() {
  const roles = await loadRoles();
  roleList.replaceChildren(...roles.map(roleCard));
}

async function deleteRole(role, button) {
  document.getElementById("delete-role-title").textContent = `Delete the role ${role.name}?`;
  if (!(await confirmWith(document.getElementById("delete-role-dialog")))) {
    button.focus();
    return;
  }
  try {
    await api("DELETE", `/api/v1/roles/${encodeURIComponent(role.id)}`);
  } catch (error) {
    fail(error);
    return;
  }
  await refresh();
  done(`Role ${role.name} deleted.`);
}

// Legends follow the rules' order; ids stay unique with a counter that only grows.
function renumber() {
  ruleRows.querySelectorAll(".rule > legend").forEach((legend, index) => {
    legend.textContent = `Rule ${index + 1}`;
  });
}

function addRule() {
  ruleCount += 1;
  const rule = document.getElementById("rule-template").content.firstElementChild.cloneNode(true);
  for (const input of rule.querySelectorAll("input[data-key], input[data-action]")) {
    const key = input.dataset.key || input.dataset.action.replace(" ", "-");
    input.id = `rule-${ruleCount}-${key}`;
    const label = rule.querySelector(`label[data-for="${input.dataset.key}"]`) || input.closest("label");
    if (label && label.dataset.for) label.htmlFor = input.id;
  }
  rule.querySelector("[data-remove-rule]").addEventListener("click", () => {
    rule.remove();
    renumber();
    document.getElementById("add-rule").focus();
  });
  ruleRows.append(rule);
  renumber();
  return rule;
}

function ruleJson(rule) {
  const value = (key) => list(rule.querySelector(`[data-key="${key}"]`).value);
  const types = value("types");
  const locales = value("locales");
  const fields = value("fields");
  const body = {
    actions: [...rule.querySelectorAll("input[data-action]:checked")].map((i) => i.dataset.action),
    contentTypes: types.length ? types : ["*"],
    ownEntriesOnly: rule.querySelector('[data-key="own"]').checked,
  };
  if (locales.length) body.locales = locales;
  if (fields.length) body.fields = fields;
  return body;
}

function installCreate() {
  const form = document.getElementById("role-form");
  document.getElementById("add-rule").addEventListener("click", () => addRule().querySelector("input").focus());
  addRule();
  installCreateForm(form, document.getElementById("create-role"), {
    path: "/api/v1/roles",
    body: () => ({
      name: document.getElementById("role-name").value.trim(),
      description: document.getElementById("role-description").value.trim(),
      takesLocales: document.getElementById("role-takes-locales").checked,
      rules: [...ruleRows.querySelectorAll(".rule")].map(ruleJson),
    }),
    created: (role) => `Role ${role.name} created.`,
    clear: () => {
      ruleRows.replaceChildren();
      addRule();
    },
    refresh,
  }, { fail, done });
}

installDialogs();
installCreate();
startPage(refresh, fail);
