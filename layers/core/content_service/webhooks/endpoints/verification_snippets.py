"""Signature verification for receivers, in four languages: shown on the endpoint page (with a
Copy button) and in docs/webhooks.md, from this one place.

Each follows docs/webhooks.md, "Receiver guide", with no dependency beyond its standard library:
HMAC-SHA256 over `<t>.<raw body>` keyed with the whole secret string (`whsec_` included), any of
several `v1` values may match, compared in constant time, and a timestamp more than 300 s away in
either direction is refused. The Python and Node versions are run against a real delivery by
tests/integration/test_verification_snippets.py.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Snippet:
    language: str
    label: str
    code: str


PYTHON = '''import hashlib
import hmac
import time


def verify_signature(raw_body: bytes, header: str, secret: str, tolerance: int = 300) -> bool:
    """True when the X-Service-Signature header signs these exact bytes, recently."""
    timestamp, signatures = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t" and value.isascii() and value.isdigit():
            timestamp = int(value)
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or abs(time.time() - timestamp) > tolerance:
        return False
    signed = str(timestamp).encode() + b"." + raw_body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, candidate) for candidate in signatures)
'''

NODE = """const crypto = require("node:crypto");

// rawBody: the request body as received (a Buffer, e.g. from express.raw()).
function verifySignature(rawBody, header, secret, toleranceSeconds = 300) {
  let timestamp = null;
  const signatures = [];
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "t" && /^[0-9]+$/.test(value)) timestamp = Number(value);
    else if (key === "v1") signatures.push(value);
  }
  if (timestamp === null || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) {
    return false;
  }
  const expected = crypto
    .createHmac("sha256", secret)
    .update(`${timestamp}.`)
    .update(rawBody)
    .digest("hex");
  return signatures.some(
    (candidate) =>
      candidate.length === expected.length &&
      crypto.timingSafeEqual(Buffer.from(candidate), Buffer.from(expected)),
  );
}
"""

GO = """package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
)

// VerifySignature reports whether header signs rawBody (the bytes as received), recently.
func VerifySignature(rawBody []byte, header, secret string, tolerance time.Duration) bool {
	var timestamp int64 = -1
	var signatures []string
	for _, part := range strings.Split(header, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		if key == "t" {
			if t, err := strconv.ParseInt(value, 10, 64); err == nil && t >= 0 {
				timestamp = t
			}
		} else if key == "v1" {
			signatures = append(signatures, value)
		}
	}
	if timestamp < 0 || math.Abs(float64(time.Now().Unix()-timestamp)) > tolerance.Seconds() {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(rawBody)
	expected := hex.EncodeToString(mac.Sum(nil))
	for _, candidate := range signatures {
		if hmac.Equal([]byte(candidate), []byte(expected)) {
			return true
		}
	}
	return false
}
"""

PHP = """<?php
// $rawBody: file_get_contents('php://input'); $header: $_SERVER['HTTP_X_SERVICE_SIGNATURE'].
function verify_signature(
    string $rawBody,
    string $header,
    string $secret,
    int $tolerance = 300
): bool {
    $timestamp = null;
    $signatures = [];
    foreach (explode(',', $header) as $part) {
        [$key, $value] = array_pad(explode('=', trim($part), 2), 2, '');
        if ($key === 't' && ctype_digit($value)) {
            $timestamp = (int) $value;
        } elseif ($key === 'v1') {
            $signatures[] = $value;
        }
    }
    if ($timestamp === null || abs(time() - $timestamp) > $tolerance) {
        return false;
    }
    $expected = hash_hmac('sha256', $timestamp . '.' . $rawBody, $secret);
    foreach ($signatures as $candidate) {
        if (hash_equals($expected, $candidate)) {
            return true;
        }
    }
    return false;
}
"""

SNIPPETS: tuple[Snippet, ...] = (
    Snippet("python", "Python", PYTHON),
    Snippet("javascript", "Node.js", NODE),
    Snippet("go", "Go", GO),
    Snippet("php", "PHP", PHP),
)

# A `standard` endpoint's deliveries also carry the Standard Webhooks headers (`webhook-id`,
# `webhook-timestamp`, `webhook-signature`), which the scheme's official libraries verify with
# the endpoint's secret as shown (its standard base64 form is what they decode).
STANDARD_PYTHON = """# pip install standardwebhooks
from standardwebhooks import Webhook, WebhookVerificationError

webhook = Webhook(SECRET)  # the endpoint's whsec_... secret


def handle(raw_body: bytes, headers: dict[str, str]) -> int:
    try:
        event = webhook.verify(raw_body, headers)  # webhook-id, -timestamp and -signature
    except WebhookVerificationError:
        return 400
    # Deduplicate on headers["webhook-id"]: the event id, the same on every retry.
    ...
    return 204
"""

STANDARD_NODE = """const { Webhook } = require("standardwebhooks"); // npm install standardwebhooks

const webhook = new Webhook(process.env.WEBHOOK_SECRET); // the endpoint's whsec_... secret

// rawBody: the request body as received (a string); headers: the request's headers.
function handle(rawBody, headers) {
  let event;
  try {
    event = webhook.verify(rawBody, headers); // webhook-id, -timestamp and -signature
  } catch (error) {
    return 400;
  }
  // Deduplicate on headers["webhook-id"]: the event id, the same on every retry.
  return 204;
}
"""

STANDARD_SNIPPETS: tuple[Snippet, ...] = (
    Snippet("python", "Python (standardwebhooks)", STANDARD_PYTHON),
    Snippet("javascript", "Node.js (standardwebhooks)", STANDARD_NODE),
)
