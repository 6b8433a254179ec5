import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { presentedToken, tokenMatches } from '../../src/transport/auth.js';
import { hostName, isAllowedHost, isLoopbackAddress } from '../../src/transport/hosts.js';

describe('bearer tokens', () => {
  it('accepts "Bearer <t>" in any case and a bare token', () => {
    assert.equal(presentedToken('Bearer abc'), 'abc');
    assert.equal(presentedToken('bearer   abc '), 'abc');
    assert.equal(presentedToken('abc'), 'abc');
    assert.equal(presentedToken(undefined), undefined);
    assert.equal(presentedToken('Bearer '), 'Bearer');
    assert.equal(presentedToken('  '), undefined);
  });
  it('matches only the exact token', () => {
    assert.equal(tokenMatches('s3cret-token-value', 's3cret-token-value'), true);
    assert.equal(tokenMatches('s3cret-token-valu', 's3cret-token-value'), false);
    assert.equal(tokenMatches('', 's3cret-token-value'), false);
    assert.equal(tokenMatches(undefined, 's3cret-token-value'), false);
  });
});

describe('host allow-list', () => {
  it('always allows loopback names, with or without a port', () => {
    for (const h of ['localhost', 'localhost:7744', '127.0.0.1:1', '[::1]:7744'])
      assert.ok(isAllowedHost(h, []), h);
  });
  it('allows listed names and wildcard subdomains, nothing else', () => {
    const allowed = ['*.trycloudflare.com', 'mnemo.example.org'];
    assert.ok(isAllowedHost('abc-def.trycloudflare.com', allowed));
    assert.ok(isAllowedHost('mnemo.example.org:443', allowed));
    assert.equal(isAllowedHost('trycloudflare.com', allowed), false);
    assert.equal(isAllowedHost('evil.com', allowed), false);
    assert.equal(isAllowedHost('trycloudflare.com.evil.com', allowed), false);
    assert.equal(isAllowedHost('', allowed), false);
  });
  it('reads host names out of origins', () => {
    assert.equal(hostName('https://A.trycloudflare.com'), 'a.trycloudflare.com');
    assert.equal(hostName('http://[::1]:3000'), '::1');
  });
  it('knows loopback addresses', () => {
    assert.ok(isLoopbackAddress('127.0.0.1'));
    assert.ok(isLoopbackAddress('::1'));
    assert.ok(isLoopbackAddress('localhost'));
    assert.equal(isLoopbackAddress('0.0.0.0'), false);
    assert.equal(isLoopbackAddress('192.168.1.2'), false);
  });
});
