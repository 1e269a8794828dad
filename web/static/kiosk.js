// Shared kiosk helpers: JSON calls with clear messages, a toast, and the live session stream.

const toastEl = () => document.getElementById("toast");
let toastTimer = null;

/** Show a short message; errors stay a little longer. */
export function toast(message, kind = "info") {
  const el = toastEl();
  el.textContent = message;
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, kind === "error" ? 6000 : 2500);
}

/** POST/GET JSON. Resolves to {ok, status, data}; never throws for HTTP errors. */
export async function api(path, body = undefined, method = body === undefined ? "GET" : "POST") {
  try {
    const response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch { data = null; }
    if (!response.ok) {
      const message = data?.error?.message || `The companion answered ${response.status}.`;
      toast(message, "error");
    }
    return { ok: response.ok, status: response.status, data };
  } catch (err) {
    toast("The companion cannot be reached. Check the Pi is on; nothing was changed.", "error");
    return { ok: false, status: 0, data: null };
  }
}

/** Follow a session live: calls onSession(view) for every change, onSensors(status) for the gates. */
export function follow(sessionId, { onSession, onSensors = () => {}, onMarble = () => {} }) {
  const source = new EventSource(`/api/sessions/${sessionId}/stream`);
  const connection = document.body;
  source.addEventListener("session", (e) => onSession(JSON.parse(e.data)));
  source.addEventListener("sensors", (e) => onSensors(JSON.parse(e.data)));
  source.addEventListener("marble", (e) => onMarble(JSON.parse(e.data)));
  source.addEventListener("open", () => { connection.dataset.live = "yes"; });
  source.addEventListener("error", () => { connection.dataset.live = "no"; });
  return source;
}

/** Make an element from a tag, properties and children. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, "");
    else if (value !== false && value != null) el.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child != null) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}
