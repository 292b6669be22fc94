// The replay: hand records opened from the server's records folder (or uploaded), stepped through one
// event at a time with the four hands face up; an arena match's summary; an agent's values of each decision.
"use strict";

let records = [];
let shown = []; // indexes of the records the filters keep
let current = null; // index into records
let events = [];
let step = 0;
let labels = null; // agent names by side ("A", "B") when a match is open
let values = null; // {step: decision} of the current hand

const POSITION = ["bottom", "left", "top", "right"]; // South (seat 0) at the bottom, all hands face up
const TEAM = ["North\u2013South", "East\u2013West"]; // seats 0 and 2, 1 and 3
let games = new Map(); // game id -> its number in the file, from 1: a person reads "Game 3", the id is in a tooltip

function eventsOf(r) {
  // One event per step: the deal, each bid, the pick-up, the trump, each discard, each card, the result.
  const list = [{ text: `${COMPASS[r.dealer]} deals.`, kind: "deal" }];
  let action = 0;
  for (const [seat, bid] of r.bids) list.push({ text: `${COMPASS[seat]}: ${bid === 0 ? "pass" : "bid " + bid}`, kind: "bid", seat, bid, action: action++ });
  if (r.redeal) {
    list.push({ text: "Everyone passed: the same dealer deals again.", kind: "end" });
    return list;
  }
  const k = r.rules.kitty_size;
  const bidder = COMPASS[r.bidder];
  list.push({ text: `${bidder} is the bidder (${r.bid}) and picks up ${k ? faces(r.kitty.slice(0, k)) : "nothing"}.`, kind: "pickup" });
  list.push({ text: `${bidder} declares trump: ${SUIT_NAME[r.trump]}.`, kind: "trump", seat: r.bidder, action: action++ });
  for (const card of r.discards) list.push({ text: `${bidder} discards ${face(card)}.`, kind: "discard", seat: r.bidder, card, action: action++ });
  r.tricks.forEach((t, i) => {
    t.plays.forEach(([seat, card], j) => {
      const won = j === 3 ? ` Trick ${i + 1} won by ${COMPASS[t.winner]}.` : "";
      list.push({ text: `${COMPASS[seat]} plays ${face(card)}.${won}`, kind: "play", seat, card, trick: i, place: j, action: action++ });
    });
  });
  const points = Object.entries(r.points).map(([k, team]) => `${k} ${team === null ? "nobody" : TEAM[team]}`).join(", ");
  list.push({
    text: `Bid ${r.made_bid ? "made" : "SET"}. ${points}. Game-count ${r.game_count[0]} to ${r.game_count[1]}. Score (${TEAM[0]} to ${TEAM[1]}) ${scores(r.score_before)} \u2192 ${scores(r.score_after)}${r.game_over ? `; game over, ${TEAM[r.winner]} wins` : ""}.`,
    kind: "end",
  });
  return list;
}

// "West · A: Network · dealer" (a match's side and the name of its agent; the spec is in the tooltip).
function seatLabel(r, seat) {
  const side = r.agents ? r.agents[seat] : null;
  const name = side && labels ? `${side}: ${playerName(labels[side])}` : side || "";
  return `${COMPASS[seat]}${name ? " \u00b7 " + name : ""}${seat === r.dealer ? " \u00b7 dealer" : ""}`;
}

// "Game 3, hand 2", with the game's id for a tooltip.
const handName = (r) => `Game ${games.get(r.game_id)}, hand ${r.hand_index + 1}`;

function draw() {
  const r = records[current];
  const upto = events.slice(0, step + 1);
  const held = r.hands.map((h) => [...h]);
  const gone = new Set();
  const bids = { 0: [], 1: [], 2: [], 3: [] };
  let trick = [];
  let doneTricks = [];
  for (const e of upto) {
    if (e.kind === "bid") bids[e.seat].push(e.bid === 0 ? "pass" : `bid ${e.bid}`);
    if (e.kind === "pickup") held[r.bidder].push(...r.kitty.slice(0, r.rules.kitty_size));
    if (e.kind === "discard") held[r.bidder] = held[r.bidder].filter((c) => c !== e.card);
    if (e.kind === "play") {
      gone.add(e.card);
      if (e.place === 0) trick = [];
      trick.push([e.seat, e.card]);
      if (e.place === 3) doneTricks = r.tricks.slice(0, e.trick + 1);
    }
  }
  $("hand-title").textContent =
    `${handName(r)}: ` + (r.redeal ? "all passed" : `${COMPASS[r.bidder]} bid ${r.bid} in ${SUIT_NAME[r.trump]}, ${r.made_bid ? "made" : "set"}`) +
    ` \u00b7 score before (${TEAM[0]} to ${TEAM[1]}) ${scores(r.score_before)}`;
  $("hand-title").title = `game ${r.game_id}`;
  for (let seat = 0; seat < 4; seat++) {
    const who = el("div", {
      class: "who" + (events[step + 1] && events[step + 1].seat === seat ? " to-act" : ""),
      text: seatLabel(r, seat) + (bids[seat].length ? ` \u00b7 ${bids[seat].join(", ")}` : ""),
    });
    if (r.agents && labels) who.title = labels[r.agents[seat]] || "";
    const hand = el("div", { class: "open-hand" }, ...held[seat].map((card) => cardEl(card, { small: true, dim: gone.has(card), seat })));
    $(`seat-${POSITION[seat]}`).replaceChildren(who, hand);
  }
  $("trick").replaceChildren(
    ...trick.map(([seat, card]) =>
      el("figure", { class: `slot ${POSITION[seat]}` }, cardEl(card, { seat }), el("figcaption", { text: COMPASS[seat] })),
    ),
  );
  $("tricks-list").replaceChildren(
    ...doneTricks.map((tr, i) =>
      el(
        "div",
        { class: "done-trick", "data-trick": i },
        `Trick ${i + 1}: `,
        ...tr.plays.map(([seat, card]) => Object.assign(cardEl(card, { seat, small: true }), { title: COMPASS[seat] })),
        ` won by ${COMPASS[tr.winner]}`,
      ),
    ),
  );
  const e = events[step];
  $("event").textContent = e.text;
  $("slider").max = events.length - 1;
  $("slider").value = step;
  $("step-text").textContent = `step ${step} of ${events.length - 1}`;
  const box = $("decision-values");
  box.replaceChildren();
  const next = events[step + 1];
  if (values && next && next.action !== undefined && values[next.action]) box.appendChild(valuesEl(values[next.action], `${COMPASS[next.seat]}'s decision`));
  $("values-legend").hidden = !values;
}

function open(index) {
  current = index;
  events = eventsOf(records[index]);
  step = 0;
  values = null;
  $("viewer").hidden = false;
  $("hand-pick").value = String(index);
  draw();
}

function applyFilters() {
  const bidder = $("f-bidder").value;
  const bid = $("f-bid").value;
  const made = $("f-made").value;
  shown = records
    .map((r, i) => [r, i])
    .filter(([r]) => (bidder === "" || String(r.bidder) === bidder) && (bid === "" || String(r.bid) === bid))
    .filter(([r]) => made === "" || (made === "redeal" ? r.redeal : !r.redeal && (made === "made") === r.made_bid))
    .map(([, i]) => i);
  $("hand-pick").replaceChildren(
    ...shown.map((i) => {
      const r = records[i];
      const text = handName(r) + (r.redeal ? ", all passed" : `: ${COMPASS[r.bidder]} bid ${r.bid}, ${r.made_bid ? "made" : "set"}`);
      return el("option", { value: i, text });
    }),
  );
  $("hand-count").textContent = `${shown.length} of ${records.length} hands`;
  if (shown.length) open(shown.includes(current) ? current : shown[0]);
}

function load(data, match) {
  records = data.records;
  games = new Map();
  for (const r of records) if (!games.has(r.game_id)) games.set(r.game_id, games.size + 1);
  labels = match ? { A: match.summary.agents[0], B: match.summary.agents[1] } : null;
  $("status").textContent = `${data.name}: ${records.length} hands`;
  const box = $("match-summary");
  box.hidden = !match;
  box.replaceChildren();
  if (match) drawMatch(match, box);
  current = null;
  applyFilters();
}

function drawMatch(match, box) {
  const s = match.summary;
  const [a, b] = s.agents;
  const p = (x) => (typeof x === "number" ? x.toFixed(3) : "-");
  const head = el("div", {}, el("h2", { text: `A: ${a} against B: ${b}` }));
  head.append(
    el("p", {
      id: "win-rate",
      text:
        `${s.games} games (${s.deal_sets} deal sets, seed ${s.seed}): win rate of A ${p(s.win_rate)} [${p(s.win_rate_ci95[0])}, ${p(s.win_rate_ci95[1])}], ` +
        `margin ${signed(Number(s.score_margin_per_game.toFixed(2)))} a game, ${signed(Number(s.score_margin_per_hand.toFixed(3)))} a hand` +
        (s.smear_rl_version ? ` (smear-rl ${s.smear_rl_version})` : ""),
    }),
  );
  const table = el("table", { class: "figures" });
  table.append(el("caption", { class: "note", text: "Points a hand by category, and how often each side bid each level and made it" }));
  const header = table.insertRow();
  for (const title of ["", "High", "Low", "Jack", "Game", "bid 2 / made", "bid 3 / made", "bid 4 / made"]) header.append(el("th", { text: title }));
  for (const [side, name] of [["A", a], ["B", b]]) {
    const pts = (s.points_by_category || {})[name] || {};
    const row = table.insertRow();
    row.insertCell().textContent = side;
    for (const c of ["high", "low", "jack", "game"]) row.insertCell().textContent = p(pts[c]);
    for (const level of ["2", "3", "4"]) {
      const made = ((s.made_bid_rate || {})[name] || {})[level];
      row.insertCell().textContent = `${p(((s.bid_rate || {})[name] || {})[level])} / ${made === null ? "-" : p(made)}`;
    }
  }
  head.append(el("div", { class: "figures-wrap" }, table));
  const ol = el("ol", { id: "swings" });
  for (const sw of match.swings) {
    const li = el("li", {
      text: `deal set ${sw.deal_set}, hand ${sw.hand_index + 1}: ${sw.swing >= 0 ? "+" : "\u2212"}${Math.abs(sw.swing)} for A (${sw.margins.map(signed).join(" and ")}) `,
    });
    sw.records.forEach((index, k) => {
      const button = el("button", { type: "button", text: k === 0 ? "game A" : "game B" });
      button.addEventListener("click", () => {
        for (const f of ["f-bidder", "f-bid", "f-made"]) $(f).value = "";
        applyFilters();
        open(index);
      });
      li.append(button);
    });
    ol.append(li);
  }
  const swings = el("div", {}, el("h3", { text: "The hands whose two games differed most (A's margin with one set of cards plus with the other)" }), ol);
  box.append(head, swings);
}

async function guarded(work) {
  try {
    showError("");
    await work();
  } catch (e) {
    showError(e.message);
  }
}

async function listFiles() {
  const data = await api("GET", "/api/records");
  $("folder").textContent = data.folder ? `in ${data.folder}` : "No records folder (smear-web --records DIR); upload a file.";
  const list = $("file-list");
  list.replaceChildren();
  for (const selectId of ["match-json", "match-records"]) $(selectId).replaceChildren();
  for (const f of data.files) {
    if (f.name.endsWith(".jsonl")) {
      const button = el("button", { type: "button", class: "file", text: f.name, "data-name": f.name });
      button.addEventListener("click", () => guarded(async () => load(await api("GET", `/api/records/file?name=${encodeURIComponent(f.name)}`))));
      list.append(el("li", {}, button));
    }
    $(f.name.endsWith(".json") ? "match-json" : "match-records").append(el("option", { value: f.name, text: f.name }));
  }
  const json = $("match-json");
  json.addEventListener("change", () => {
    const twin = json.value.replace(/\.json$/, ".jsonl");
    if ([...$("match-records").options].some((o) => o.value === twin)) $("match-records").value = twin;
  });
  json.dispatchEvent(new Event("change"));
}

function move(to) {
  if (current === null) return;
  step = Math.max(0, Math.min(events.length - 1, to));
  draw();
}

$("first").addEventListener("click", () => move(0));
$("prev").addEventListener("click", () => move(step - 1));
$("next").addEventListener("click", () => move(step + 1));
$("last").addEventListener("click", () => move(events.length - 1));
$("slider").addEventListener("input", (e) => move(Number(e.target.value)));
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
  if (e.key === "ArrowRight") move(step + 1);
  if (e.key === "ArrowLeft") move(step - 1);
});
for (const f of ["f-bidder", "f-bid", "f-made"]) $(f).addEventListener("change", applyFilters);
$("hand-pick").addEventListener("change", (e) => open(Number(e.target.value)));
$("upload").addEventListener("change", (e) =>
  guarded(async () => {
    const file = e.target.files[0];
    if (file) load(await api("POST", `/api/records/upload?name=${encodeURIComponent(file.name)}`, file, true));
  }),
);
$("match-form").addEventListener("submit", (e) => {
  e.preventDefault();
  guarded(async () => {
    const q = `json=${encodeURIComponent($("match-json").value)}&records=${encodeURIComponent($("match-records").value)}`;
    const match = await api("GET", `/api/match?${q}`);
    load(match, match);
  });
});
$("explain-hand").addEventListener("click", () =>
  guarded(async () => {
    const spec = $("explain-agent").value.trim();
    const answer = await api("POST", "/api/explain", { record: records[current], agent: spec });
    values = Object.fromEntries(answer.decisions.map((d) => [d.step, d]));
    draw();
  }),
);

$("values-legend").textContent = VALUES_LEGEND;
guarded(listFiles);
