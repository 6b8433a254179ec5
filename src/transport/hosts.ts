const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** The host name of a Host header or an Origin, lowercased, without port or brackets. */
export function hostName(value: string): string {
  let host = value.trim().toLowerCase();
  const scheme = host.indexOf('://');
  if (scheme !== -1) host = host.slice(scheme + 3);
  host = host.split('/')[0] ?? '';
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon !== -1 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
}

/**
 * Whether `host` is loopback or matches one of `patterns`: an exact name, or `*.example.com`
 * for any subdomain of example.com (not example.com itself).
 */
export function isAllowedHost(host: string, patterns: readonly string[]): boolean {
  const name = hostName(host);
  if (name === '') return false;
  if (LOOPBACK_HOSTS.includes(name)) return true;
  return patterns.some((raw) => {
    const pattern = raw.trim().toLowerCase();
    if (pattern.startsWith('*.'))
      return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
    return name === hostName(pattern);
  });
}

export function isLoopbackAddress(address: string): boolean {
  const name = hostName(address);
  return LOOPBACK_HOSTS.includes(name) || /^127\.\d+\.\d+\.\d+$/.test(name);
}
