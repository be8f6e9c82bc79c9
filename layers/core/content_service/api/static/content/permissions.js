// What the signed-in user may do in this workspace, from `GET /api/v1/me`'s `permissions`
// (their roles' rules), so the pages hide the actions and lock the fields a role does not
// allow. The service refuses them anyway: this only spares a person a button that would fail.
// Without `permissions` in the answer (an older service) everything stays offered.

import { call } from "./request.js";

function covers(rule, action, typeName, locale, own) {
  return (
    rule.actions.includes(action) &&
    (rule.contentTypes.includes("*") || rule.contentTypes.includes(typeName)) &&
    (!rule.locales || !locale || rule.locales.includes(locale)) &&
    (own || !rule.ownEntriesOnly)
  );
}

export class Allowed {
  constructor(me) {
    this.rules = me.permissions ? me.permissions.rules : null;
  }

  allows(action, typeName, { locale = null, own = true } = {}) {
    if (!this.rules) return true;
    return this.rules.some((rule) => covers(rule, action, typeName, locale, own));
  }

  // Whether a rule allowing `action` lets `field` change (a rule without `fields`: every one).
  letsChange(action, typeName, field, { locale = null, own = true } = {}) {
    if (!this.rules) return true;
    return this.rules.some((rule) => covers(rule, action, typeName, locale, own) && (!rule.fields || rule.fields.includes(field)));
  }
}

export async function loadAllowed(workspaceId) {
  try {
    return new Allowed(await call("GET", "/api/v1/me", { workspaceId }));
  } catch {
    return new Allowed({});
  }
}
