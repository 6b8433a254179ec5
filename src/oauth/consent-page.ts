// A minimal consent page at /ui/consent, server-made, under the page's Content-Security-Policy:
// a stand-in until the web page (web/) has its own consent view over the same API (consent.ts).
// What the client sent (its name) is only ever set as text, never as markup.
import type express from 'express';
import { CONTENT_SECURITY_POLICY } from '../ui/page.js';

const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>mnemo: allow access?</title><script src="/ui/consent.js" defer></script></head>
<body><main>
<h1>Allow access to your memory?</h1>
<p id="who">Loading…</p>
<fieldset id="namespaces"><legend>Namespaces it may use</legend></fieldset>
<p><label>Access token <input id="token" type="password" autocomplete="current-password"></label></p>
<p><button id="allow" type="button">Allow</button> <button id="deny" type="button">Deny</button></p>
<p id="error" role="alert"></p>
</main></body></html>
`;

const SCRIPT = `'use strict';
const uid = new URLSearchParams(location.search).get('uid') || '';
const api = '/oauth/interaction/' + encodeURIComponent(uid);
const $ = (id) => document.getElementById(id);
const fail = (text) => { $('error').textContent = text; };
const tokenKey = 'mnemo.token';
try { $('token').value = sessionStorage.getItem(tokenKey) || ''; } catch {}
fetch(api).then(async (r) => {
  const body = await r.json();
  if (!r.ok) throw new Error(body.error ? body.error.message : r.statusText);
  const c = body.client;
  $('who').textContent = (c.name || c.id) + ' (sends you back to ' + c.redirect_host + ') asks to read and write your memory.';
  body.namespaces.forEach((name, i) => {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox'; box.value = name; box.checked = i === 0;
    label.append(box, ' ' + name);
    $('namespaces').append(label, document.createElement('br'));
  });
}).catch((e) => fail(e.message));
async function answer(decision) {
  const namespaces = [...document.querySelectorAll('#namespaces input:checked')].map((b) => b.value);
  const r = await fetch(api, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: $('token').value, decision, namespaces }) });
  const body = await r.json();
  if (!r.ok) return fail(body.error ? body.error.message : r.statusText);
  location.assign(body.redirect);
}
$('allow').addEventListener('click', () => answer('allow').catch((e) => fail(e.message)));
$('deny').addEventListener('click', () => answer('deny').catch((e) => fail(e.message)));
`;

export function consentPage(): express.RequestHandler {
  return (req, res) => {
    res.set({
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
    });
    if (req.path.endsWith('.js')) res.type('text/javascript; charset=utf-8').send(SCRIPT);
    else res.type('html').send(HTML);
  };
}
