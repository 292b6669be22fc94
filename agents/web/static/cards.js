// What both pages of smear-web share: cards drawn with CSS, the JSON API, an agent's values of a decision.
"use strict";

const SUIT = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const $ = (id) => document.getElementById(id);

function cardEl(card, opts = {}) {
  const el = document.createElement(opts.onClick ? "button" : "span");
  const rank = card[0] === "T" ? "10" : card[0];
  el.className = "card " + (card[1] === "H" || card[1] === "D" ? "red" : "black");
  el.dataset.card = card;
  if (opts.seat !== undefined) el.dataset.seat = opts.seat;
  el.setAttribute("aria-label", `${rank} of ${SUIT_NAME[card[1]]}`);
  el.innerHTML = `<span class="rank">${rank}</span><span class="suit">${SUIT[card[1]]}</span>`;
  if (opts.onClick) {
    el.type = "button";
    el.classList.add("legal");
    el.addEventListener("click", opts.onClick);
  }
  if (opts.dim) el.classList.add("dim");
  if (opts.small) el.classList.add("small");
  return el;
}

async function api(method, path, body, raw) {
  const headers = body === undefined || raw ? {} : { "Content-Type": "application/json" };
  const response = await fetch(path, { method, headers, body: raw ? body : body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 204) return null;
  let data;
  try {
    data = await response.json();
  } catch (e) {
    throw new Error(`${response.status} ${response.statusText}`);
  }
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(message) {
  const el = $("error");
  el.textContent = message || "";
  el.hidden = !message;
}

// A decision's values as a small table, best first, the action made marked.
function valuesEl(decision, who) {
  const box = document.createElement("div");
  box.className = "values";
  const head = document.createElement("div");
  head.textContent = `${who}: ${decision.action}`;
  box.appendChild(head);
  const table = document.createElement("table");
  const ranked = Object.entries(decision.values).sort((a, b) => b[1] - a[1]);
  for (const [name, value] of ranked) {
    const row = table.insertRow();
    row.insertCell().textContent = name;
    row.insertCell().textContent = (value >= 0 ? "+" : "") + value.toFixed(3);
    if (name === decision.action) row.className = "chosen";
  }
  box.appendChild(table);
  return box;
}
