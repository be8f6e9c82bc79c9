// The entry editor's value fields: each control read into the value the content API takes,
// with the problem a person can fix before anything is sent, in words.

import { Raw } from "./request.js";

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 63n - 1n;

function text(input) {
  return input.value;
}

function readInteger(input) {
  const typed = input.value.trim();
  if (!typed) return { value: null };
  if (!INTEGER.test(typed)) return { problem: "Enter a whole number, such as 42." };
  const number = BigInt(typed);
  if (number < INT_MIN || number > INT_MAX) {
    return { problem: "The number is too large: it must fit in a signed 64-bit integer." };
  }
  return { value: new Raw(number.toString()) };
}

function readFloat(input) {
  const typed = input.value.trim();
  if (!typed) return { value: null };
  const number = Number(typed);
  if (!NUMBER.test(typed) || !Number.isFinite(number)) {
    return { problem: "Enter a number, such as 1.5 (with a dot for decimals)." };
  }
  return { value: number };
}

function readDate(input, withTime) {
  if (input.validity.badInput) {
    return { problem: withTime ? "Enter a complete date and time." : "Enter a complete date." };
  }
  if (!input.value) return { value: null };
  return { value: withTime ? `${input.value}Z` : input.value };
}

function readJson(input) {
  const typed = input.value.trim();
  if (!typed) return { value: null };
  try {
    JSON.parse(typed);
  } catch (error) {
    return { problem: `This is not valid JSON: ${error.message}.` };
  }
  return { value: new Raw(typed) };
}

const READERS = {
  string: (input) => ({ value: text(input) || null }),
  text: (input) => ({ value: text(input) || null }),
  integer: readInteger,
  float: readFloat,
  boolean: (input) => ({ value: input.value === "" ? null : input.value === "true" }),
  datetime: (input) => readDate(input, true),
  date: (input) => readDate(input, false),
  enum: (input) => ({ value: input.value || null }),
  json: readJson,
};

// One value field of the form: `read()` gives {value} or {problem}; `raw()` what the person
// has typed, to tell whether anything changed.
export class ValueField {
  constructor(wrap, richText) {
    this.wrap = wrap;
    this.name = wrap.dataset.field;
    this.type = wrap.dataset.type;
    this.required = wrap.hasAttribute("data-required");
    this.label = wrap.querySelector(".label, label").childNodes[0].textContent.trim();
    this.rich = richText || null;
    this.input = this.rich ? null : wrap.querySelector("input, select, textarea");
  }

  read() {
    const found = this.rich ? { value: this.rich.value() } : READERS[this.type](this.input);
    if (found.problem) return found;
    if (found.value === null && this.required) return { problem: `${this.label} is required.` };
    return found;
  }

  raw() {
    return this.rich ? this.rich.value() || "" : this.input.value;
  }

  // What the page was served with, whatever was typed before this script ran.
  initial() {
    if (this.rich) return this.rich.initial || "";
    if (this.input.tagName === "SELECT") {
      const served = [...this.input.options].find((o) => o.defaultSelected) || this.input.options[0];
      return served ? served.value : "";
    }
    return this.input.defaultValue;
  }

  focus() {
    if (this.rich) this.rich.focus();
    else this.input.focus();
  }

  invalidElement() {
    return this.rich ? this.rich.element : this.input;
  }
}

// The audiences of an audience-gated entry: a comma list.
export class AudiencesField {
  constructor(wrap) {
    this.wrap = wrap;
    this.name = "audiences";
    this.input = wrap.querySelector("input");
  }

  read() {
    const names = this.input.value.split(",").map((n) => n.trim()).filter(Boolean);
    return { value: [...new Set(names)] };
  }

  raw() {
    return this.input.value;
  }

  initial() {
    return this.input.defaultValue;
  }

  focus() {
    this.input.focus();
  }

  invalidElement() {
    return this.input;
  }
}
