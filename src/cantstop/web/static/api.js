// Talking to the server: JSON over HTTP, errors turned into readable messages.
// A change sends the account session's CSRF token (from its cookie) when signed in.
export async function api(path, options = {}) {
  const csrf = /(?:^|; )cantstop_csrf=([^;]*)/.exec(document.cookie);
  const guard = csrf && options.method && options.method !== "GET" ? { "x-csrf-token": csrf[1] } : {};
  const init = { credentials: "same-origin", ...options, headers: { "content-type": "application/json", ...guard, ...(options.headers || {}) } };
  if (init.body && typeof init.body !== "string") init.body = JSON.stringify(init.body);
  const response = await fetch(path, init);
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = data.message || (Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join("; ") : `HTTP ${response.status}`);
    const error = new Error(message);
    error.data = data;
    throw error;
  }
  return data;
}

export function text(tag, content, cls) {
  const node = document.createElement(tag);
  if (content !== undefined && content !== null) node.textContent = content;
  if (cls) node.className = cls;
  return node;
}

export function choiceLabel(choice) {
  return choice.join(" + ");
}

// A JSON value kept in localStorage, or `fallback` if there is none (or it is unreadable).
export function stored(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}
