// Talking to the server: JSON over HTTP, errors turned into readable messages.
// A change sends the account session's CSRF token (from its cookie) when signed in.

export const OFFLINE = "The server cannot be reached: your connection is down, or the server is restarting. Try again in a moment.";

export async function api(path, options = {}) {
  const csrf = /(?:^|; )cantstop_csrf=([^;]*)/.exec(document.cookie);
  const guard = csrf && options.method && options.method !== "GET" ? { "x-csrf-token": csrf[1] } : {};
  const init = { credentials: "same-origin", ...options, headers: { "content-type": "application/json", ...guard, ...(options.headers || {}) } };
  if (init.body && typeof init.body !== "string") init.body = JSON.stringify(init.body);
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    // The browser's own words ("Failed to fetch") tell a player nothing: no answer came at all.
    const error = new Error(OFFLINE);
    error.data = { error: "offline" };
    throw error;
  }
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

// A choice button's content (its columns, then the dice that make them) and its spoken name:
// the words on the button as they are read, spaced, then what they mean, so a person who says
// what they see ("click 6 + 10") reaches it.
export function nameChoice(button, parts, explained) {
  button.replaceChildren(...parts.flatMap((part, i) => (i ? [" ", part] : [part])));
  button.setAttribute("aria-label", `${button.textContent.replace(/\s+/g, " ").trim()}: ${explained}`);
}

// A JSON value kept in localStorage, or `fallback` if there is none (or it is unreadable).
export function stored(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}
