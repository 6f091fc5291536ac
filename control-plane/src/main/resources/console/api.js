// Every read and change goes through the HTTP API with the user's token; the token is kept in
// sessionStorage only (gone when the tab closes), never in a cookie, so no other site can make the
// browser send it.

const TOKEN = 'carillon.token';
const WHO = 'carillon.whoami';

export const session = {
  token: () => sessionStorage.getItem(TOKEN),
  whoami: () => JSON.parse(sessionStorage.getItem(WHO) || 'null'),
  save(token, who) {
    sessionStorage.setItem(TOKEN, token);
    sessionStorage.setItem(WHO, JSON.stringify(who));
  },
  clear() {
    sessionStorage.removeItem(TOKEN);
    sessionStorage.removeItem(WHO);
  },
  /** Whether the logged-in role may do what needs `role` (viewer < operator < admin). */
  may(role) {
    const order = ['viewer', 'operator', 'admin'];
    const who = session.whoami();
    return !!who && order.indexOf(who.role) >= order.indexOf(role);
  },
};

/** A refusal of the API: its status and its problem+json body, if any. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem && problem.detail ? problem.detail : `the API answered ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/**
 * Calls /api/v1 + path. Resolves with the parsed JSON; rejects with ApiError (a 401 also tells the
 * app, which goes back to the login page).
 */
export async function api(method, path, body, opts = {}) {
  const token = opts.token || session.token();
  const headers = {Accept: 'application/json'};
  if (token) headers.Authorization = 'Bearer ' + token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  Object.assign(headers, opts.headers || {});
  let response;
  try {
    response = await fetch('/api/v1' + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (e) {
    throw new ApiError(0, {detail: 'the API cannot be reached: ' + e.message});
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (e) {
    json = null;
  }
  if (!response.ok) {
    if (response.status === 401 && !opts.token) {
      window.dispatchEvent(new CustomEvent('carillon:unauthorized', {detail: json}));
    }
    throw new ApiError(response.status, json);
  }
  return json;
}

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, v);
  }
  const s = q.toString();
  return s ? '?' + s : '';
}
