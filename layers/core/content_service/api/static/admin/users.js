// The users page (/users): the list from `GET /api/v1/users`, a new user
// (`POST /api/v1/users` with its grants), a user's roles in one workspace
// (`PUT /api/v1/users/{id}/grants/{workspace}`) and deactivation
// (`POST /api/v1/users/{id}/deactivate`).

import { api, busy, confirmWith, describe, installCreateForm, installDialogs, messageBoxes, rowButton, setMessage, startPage } from "./common.js";
import { EVERY_WORKSPACE, chosenGrants, data, element, fillWorkspaces, grantText, loadRoles, renderRoleChoices, workspaceName } from "./access.js";

const alertBox = document.getElementById("users-alert");
const statusBox = document.getElementById("users-status");
const rows = document.getElementById("user-rows");
let roles = data.builtinRoles;
let users = [];

const { fail, done } = messageBoxes(alertBox, statusBox);

function grantsCell(user) {
  const cell = element("td");
  cell.dataset.label = "Roles by workspace";
  const entries = Object.entries(user.grants || {}).filter(([, grants]) => grants.length);
  if (!entries.length) {
    cell.append(element("span", "No role: cannot open any workspace", "muted"));
    return cell;
  }
  const items = element("dl", null, "mini");
  for (const [workspace, grants] of entries) {
    items.append(element("dt", workspaceName(workspace)), element("dd", grants.map((g) => grantText(g, roles)).join(", ")));
  }
  cell.append(items);
  return cell;
}

function userRow(user) {
  const row = element("tr", null, "user-row");
  row.dataset.userId = user.id;
  row.dataset.email = user.email;
  const who = element("td");
  who.dataset.label = "User";
  who.append(element("strong", user.email), element("div", `created ${String(user.createdAt || "").slice(0, 10)}`, "muted small"));
  const state = element("td");
  state.dataset.label = "State";
  state.append(element("span", user.active === false ? "Deactivated" : "Active", `badge badge-${user.active === false ? "neutral" : "ok"}`));
  const actions = element("td", null, "row-actions");
  if (user.active !== false) {
    const change = rowButton("Change roles", ` of ${user.email}`);
    change.addEventListener("click", () => changeGrants(user, change));
    const deactivate = rowButton("Deactivate", ` ${user.email}`);
    deactivate.addEventListener("click", () => deactivateUser(user, deactivate));
    actions.append(change, deactivate);
  }
  row.append(who, state, grantsCell(user), actions);
  return row;
}

async function refresh() {
  const body = await api("GET", "/api/v1/users");
  users = body.items;
  rows.replaceChildren(...users.map(userRow));
}

async function changeGrants(user, button) {
  const dialog = document.getElementById("grants-dialog");
  const select = document.getElementById("grants-workspace");
  const choices = document.getElementById("grants-roles");
  const dialogAlert = document.getElementById("grants-alert");
  document.getElementById("grants-title").textContent = `Change the roles of ${user.email}`;
  setMessage(dialogAlert, "");
  const fill = () => renderRoleChoices(choices, roles, "grants", select.value, (user.grants || {})[select.value] || []);
  select.value = Object.keys(user.grants || {}).find((w) => (user.grants[w] || []).length) || EVERY_WORKSPACE;
  fill();
  select.onchange = fill;
  dialog.showModal();
  select.focus();
  const form = document.getElementById("grants-form");
  form.onsubmit = (event) => {
    event.preventDefault();
    busy(document.getElementById("grants-save"), "Saving…", async () => {
      const path = `/api/v1/users/${encodeURIComponent(user.id)}/grants/${encodeURIComponent(select.value)}`;
      try {
        await api("PUT", path, { grants: chosenGrants(choices) });
      } catch (error) {
        setMessage(dialogAlert, describe(error));
        return;
      }
      dialog.close("saved");
      await refresh();
      done(`Roles of ${user.email} in ${workspaceName(select.value)} saved.`);
      button.focus();
    });
  };
}

async function deactivateUser(user, button) {
  const dialog = document.getElementById("deactivate-dialog");
  document.getElementById("deactivate-title").textContent = `Deactivate ${user.email}?`;
  if (!(await confirmWith(dialog))) {
    button.focus();
    return;
  }
  try {
    await api("POST", `/api/v1/users/${encodeURIComponent(user.id)}/deactivate`);
  } catch (error) {
    fail(error);
    return;
  }
  await refresh();
  done(`${user.email} is deactivated.`);
}

function installCreate() {
  const form = document.getElementById("user-form");
  const select = document.getElementById("user-workspace");
  const choices = document.getElementById("user-roles");
  fillWorkspaces(select);
  fillWorkspaces(document.getElementById("grants-workspace"));
  const fill = () => renderRoleChoices(choices, roles, "user", select.value);
  select.addEventListener("change", fill);
  fill();
  installCreateForm(form, document.getElementById("create-user"), {
    path: "/api/v1/users",
    body: () => ({
      email: document.getElementById("user-email").value.trim(),
      password: document.getElementById("user-password").value,
      grants: { [select.value]: chosenGrants(choices) },
    }),
    created: (user) => `User ${user.email} created.`,
    clear: fill,
    refresh,
  }, { fail, done });
}

installDialogs();
startPage(async () => {
  roles = await loadRoles();
  installCreate();
  await refresh();
}, fail);
