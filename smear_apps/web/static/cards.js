// What both pages of smear-web share: cards drawn with CSS, the JSON API, an agent's values of a decision.
// Every piece of data goes into the page as text (textContent, never innerHTML): a name in a records
// file is shown, never run.
"use strict";

const SUIT = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const $ = (id) => document.getElementById(id);
// The seats as a table of four calls them, seat 0 first and clockwise (the play goes to the left).
const COMPASS = ["South", "West", "North", "East"];
// A player's name as a person reads it, from its agent spec (the spec itself goes in the details):
// "ismcts:simulations=20" -> "IS-MCTS".
const PLAYER_NAMES = {
  person: "a person", random: "Random", heuristic: "Heuristic", pimc: "PIMC search", neural: "Network",
  search: "Search", ismcts: "IS-MCTS", rlcard: "RLCard DQN",
};
const playerName = (spec) => PLAYER_NAMES[String(spec).split(":")[0]] || "an agent of the owner's";

// An element with attributes and children (strings become text nodes).
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("data-")) node.dataset[key.slice(5).replace(/-(.)/g, (_, c) => c.toUpperCase())] = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

// A card as its face shows it, for text: "TH" -> "10\u2665", "QC" -> "Q\u2663".
const face = (card) => (card[0] === "T" ? "10" : card[0]) + (SUIT[card[1]] || card[1]);
// Cards as faces, in a line: "A\u2663 Q\u2663 7\u2665".
const faces = (cards) => cards.map(face).join(" ");
// An action's name as a person reads it: "TH" (a card played) -> "10\u2665", "discard TH" -> "discard 10\u2665",
// "trump H" -> "trump \u2665 hearts"; bids and pass as they are.
function actionText(name) {
  const card = /^(discard )?([2-9TJQKA][CDHS])$/.exec(name);
  if (card) return (card[1] || "") + face(card[2]);
  const trump = /^trump ([CDHS])$/.exec(name);
  if (trump) return `trump ${SUIT[trump[1]]} ${SUIT_NAME[trump[1]]}`;
  return name;
}

// A signed number as text with a real minus sign: 3 -> "3", -14 -> "\u221214".
const signed = (n) => (n < 0 ? "\u2212" + Math.abs(n) : String(n));
// Two teams' scores: "3 to \u22122".
const scores = (pair) => `${signed(pair[0])} to ${signed(pair[1])}`;

function cardEl(card, opts = {}) {
  const node = document.createElement(opts.onClick ? "button" : "span");
  const rank = card[0] === "T" ? "10" : card[0];
  node.className = "card " + (card[1] === "H" || card[1] === "D" ? "red" : "black");
  node.dataset.card = card;
  if (opts.seat !== undefined) node.dataset.seat = opts.seat;
  node.setAttribute("aria-label", `${rank} of ${SUIT_NAME[card[1]] || card[1]}`);
  node.append(el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: SUIT[card[1]] || card[1] }));
  if (opts.onClick) {
    node.type = "button";
    node.classList.add("legal");
    node.addEventListener("click", opts.onClick);
  }
  if (opts.dim) node.classList.add("dim");
  if (opts.small) node.classList.add("small");
  if (opts.mark) node.classList.add(opts.mark);
  return node;
}

async function api(method, path, body, raw) {
  const headers = body === undefined || raw ? {} : { "Content-Type": "application/json" };
  const response = await fetch(path, { method, headers, body: raw ? body : body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 204) return null;
  let data;
  try {
    data = await response.json();
  } catch (e) {
    throw Object.assign(new Error(`${response.status} ${response.statusText}`), { status: response.status });
  }
  if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), { status: response.status });
  return data;
}

function showError(message) {
  const node = $("error");
  node.textContent = message || "";
  node.hidden = !message;
}

// What an agent's values mean, said once beside them.
const VALUES_LEGEND =
  "Values are in points of the hand's score margin: what the agent expects the hand to change its team's score by, " +
  "minus the other team's (+1.000 = one point better for the seat's team). The highest is its choice; the action made is marked.";

// A decision's values as a small table, best first, the action made marked.
function valuesEl(decision, who) {
  const box = el("div", { class: "values" }, el("div", { text: `${who}: ${actionText(decision.action)}` }));
  const table = el("table");
  table.append(el("caption", { class: "sr-only", text: "points of score margin" }));
  const ranked = Object.entries(decision.values).sort((a, b) => b[1] - a[1]);
  for (const [name, value] of ranked) {
    const row = table.insertRow();
    row.insertCell().textContent = actionText(name);
    row.insertCell().textContent = (value >= 0 ? "+" : "\u2212") + Math.abs(value).toFixed(3) + " pt";
    if (name === decision.action) row.className = "chosen";
  }
  box.appendChild(table);
  return box;
}
