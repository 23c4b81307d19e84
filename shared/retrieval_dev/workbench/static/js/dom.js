// Building elements from data: text always goes in as text (never HTML), so nothing an item says can
// become markup on the page.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

export function $(id) {
  return document.getElementById(id);
}

export function showError(id, error) {
  const box = $(id);
  if (!error) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = error;
}

export function announce(message) {
  $("status").textContent = message;
}

export function fixed(value, digits = 3) {
  return typeof value === "number" ? value.toFixed(digits) : String(value);
}
