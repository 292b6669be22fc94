// The smear-rl table: the server keeps the game; this page sends the seat's moves and draws the
// seat's view that comes back. Nothing here knows another seat's cards until a hand is over.
"use strict";

let tableId = null;
let state = null;
let busy = false;

function backs(n) {
  const wrap = document.createElement("span");
  wrap.className = "backs";
  for (let i = 0; i < n; i++) {
    const b = document.createElement("span");
    b.className = "card back";
    wrap.appendChild(b);
  }
  return wrap;
}

function relative(seat) {
  return ["bottom", "left", "top", "right"][(seat - state.seat + 4) % 4];
}

function seatName(seat) {
  if (seat === state.seat) return "You";
  const who = seat === (state.seat + 2) % 4 ? "Partner" : "Opponent";
  return `${who} (seat ${seat}, ${state.agents[String(seat)]})`;
}

function draw() {
  const v = state.view;
  $("setup").hidden = true;
  $("table").hidden = false;
  $("side").hidden = false;
  $("records").href = `/api/tables/${tableId}/records`;
  const me = state.seat & 1;
  const trump = v.trump ? `trump ${SUIT[v.trump]} ${SUIT_NAME[v.trump]}` : "no trump yet";
  const bid = v.bidder === null ? "no bid yet" : `seat ${v.bidder} bid ${v.bid}`;
  $("scoreboard").innerHTML = "";
  const board = document.createElement("div");
  board.innerHTML =
    `<span class="score">Us ${v.scores[me]} \u2013 Them ${v.scores[1 - me]}</span> ` +
    `<span>to ${v.rules.target_score}</span> <span>hand ${v.hand_index}, dealer seat ${v.dealer}</span> ` +
    `<span id="contract">${bid}; ${trump}</span>`;
  $("scoreboard").appendChild(board);
  if (state.tally) {
    const t = state.tally;
    const side = (team) => (team === null ? "nobody yet" : team === me ? "us" : "them");
    const tally = document.createElement("div");
    tally.id = "tally";
    tally.textContent =
      `Tricks us ${t.tricks[me]}, them ${t.tricks[1 - me]} \u00b7 High: ${side(t.high)} \u00b7 Low: ${side(t.low)} ` +
      `\u00b7 Jack: ${side(t.jack)} \u00b7 Game-count us ${t.game_count[me]}, them ${t.game_count[1 - me]}`;
    $("scoreboard").appendChild(tally);
  }
  for (let seat = 0; seat < 4; seat++) {
    const el = $(`seat-${relative(seat)}`);
    el.innerHTML = "";
    const label = document.createElement("div");
    label.className = "who" + (v.to_act === seat && !state.summary ? " to-act" : "");
    const bids = v.bids.filter(([s]) => s === seat).map(([, b]) => (b === 0 ? "pass" : `bid ${b}`));
    label.textContent = seatName(seat) + (seat === v.dealer ? " \u00b7 dealer" : "") + (bids.length ? ` \u00b7 ${bids.join(", ")}` : "");
    el.appendChild(label);
    if (seat !== state.seat) el.appendChild(backs(v.hand_sizes[seat]));
    if (seat === v.bidder && v.num_discards && seat !== state.seat) {
      const d = document.createElement("div");
      d.className = "note";
      d.textContent = `discarded ${v.num_discards} face down`;
      el.appendChild(d);
    }
  }
  const trick = $("trick");
  trick.innerHTML = "";
  for (const [seat, card] of v.trick) {
    const slot = document.createElement("div");
    slot.className = `slot ${relative(seat)}`;
    slot.appendChild(cardEl(card, { seat }));
    trick.appendChild(slot);
  }
  const legal = new Map(v.legal_actions.map((a) => [a.name, a.id]));
  const hand = $("hand");
  hand.innerHTML = "";
  for (const card of v.hand) {
    const id = legal.get(card);
    hand.appendChild(cardEl(card, id === undefined ? { dim: v.legal_actions.length > 0 } : { onClick: () => send(id) }));
    if (id !== undefined) hand.lastChild.dataset.action = id;
  }
  if (v.picked_up && v.picked_up.length) {
    const p = document.createElement("div");
    p.className = "note";
    p.textContent = `You picked up ${v.picked_up.join(" ")}` + (v.discards && v.discards.length ? `; you discarded ${v.discards.join(" ")}` : "");
    hand.appendChild(p);
  }
  const controls = $("controls");
  controls.innerHTML = "";
  const words = v.legal_actions.filter((a) => !/^[2-9TJQKA][CDHS]$/.test(a.name));
  for (const a of words) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move";
    b.dataset.action = a.id;
    b.textContent = a.name.startsWith("trump ") ? `trump ${SUIT[a.name.slice(-1)]} ${SUIT_NAME[a.name.slice(-1)]}` : a.name;
    b.addEventListener("click", () => send(a.id));
    controls.appendChild(b);
  }
  const prompt = document.createElement("p");
  prompt.id = "prompt";
  if (v.legal_actions.length) {
    const phase = { bid: "Your bid", trump: "Declare trump", discard: "Discard a card (click it)", play: "Your card (click it)" }[v.phase];
    prompt.textContent = phase;
  } else if (state.game_over) {
    prompt.textContent = `Game over: ${state.winner === me ? "your team wins" : "the other team wins"} (${state.final_scores[me]} to ${state.final_scores[1 - me]}).`;
  } else if (!state.summary) {
    prompt.textContent = "Waiting for the other seats\u2026";
  }
  controls.prepend(prompt);
  const done = $("tricks-list");
  done.innerHTML = "";
  v.tricks.forEach((t, i) => {
    const row = document.createElement("div");
    row.className = "done-trick";
    row.append(`Trick ${i + 1}: `);
    for (const [seat, card] of t.plays) {
      const c = cardEl(card, { seat, small: true });
      c.title = `seat ${seat}`;
      row.appendChild(c);
    }
    row.append(` won by ${t.winner === state.seat ? "you" : "seat " + t.winner}`);
    done.appendChild(row);
  });
  const log = $("log");
  log.innerHTML = "";
  for (const line of state.log) {
    const li = document.createElement("li");
    li.textContent = line;
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
  drawSummary();
}

function drawSummary() {
  const box = $("summary");
  const r = state.summary;
  box.hidden = !r;
  box.innerHTML = "";
  if (!r) return;
  const me = state.seat & 1;
  const title = document.createElement("h2");
  title.textContent = r.redeal ? `Hand ${r.hand_index}: everyone passed, a redeal` : `Hand ${r.hand_index} is over`;
  box.appendChild(title);
  if (!r.redeal) {
    const who = (team) => (team === null ? "nobody" : team === me ? "your team" : "the other team");
    const p = document.createElement("p");
    p.textContent =
      `Seat ${r.bidder} bid ${r.bid} in ${SUIT_NAME[r.trump]}: ${r.made_bid ? "made" : "set"}. ` +
      Object.entries(r.points).map(([k, t]) => `${state.point_rules[k]}: ${who(t)}`).join("; ") +
      `. Game-count ${r.game_count[me]} to ${r.game_count[1 - me]}. Score ${r.score_after[me]} to ${r.score_after[1 - me]}.`;
    box.appendChild(p);
  }
  const hands = document.createElement("div");
  hands.className = "all-hands";
  r.hands.forEach((cards, seat) => {
    const row = document.createElement("div");
    row.append(`${seatName(seat)} was dealt `);
    cards.forEach((c) => row.appendChild(cardEl(c)));
    hands.appendChild(row);
  });
  const kitty = document.createElement("div");
  kitty.append("Kitty ");
  r.kitty.forEach((c) => kitty.appendChild(cardEl(c)));
  hands.appendChild(kitty);
  if (r.discards && r.discards.length) {
    const d = document.createElement("div");
    d.append(`Seat ${r.bidder} discarded `);
    r.discards.forEach((c) => d.appendChild(cardEl(c)));
    hands.appendChild(d);
  }
  box.appendChild(hands);
  const scoring = [...new Set(Object.values(state.agents))].filter((spec) => /^(neural|dmc|search)\b/.test(spec));
  if (!r.redeal && scoring.length) {
    const why = document.createElement("button");
    why.type = "button";
    why.id = "explain";
    why.textContent = "What the agents thought";
    const out = document.createElement("div");
    out.id = "explained";
    why.addEventListener("click", async () => {
      why.disabled = true;
      try {
        for (const spec of scoring) {
          const seats = Object.entries(state.agents).filter(([, s]) => s === spec).map(([seat]) => Number(seat));
          const answer = await api("POST", "/api/explain", { record: r, agent: spec });
          for (const d of answer.decisions.filter((d) => seats.includes(d.seat))) out.appendChild(valuesEl(d, `seat ${d.seat} (${spec})`));
        }
      } catch (e) {
        showError(e.message);
      }
    });
    box.append(why, out);
  }
  const next = document.createElement("button");
  next.type = "button";
  next.id = "continue";
  next.textContent = state.game_over || (r.game_over ? true : false) ? "See the final score" : "Next hand";
  next.addEventListener("click", goOn);
  box.appendChild(next);
}

async function run(step) {
  if (busy) return;
  busy = true;
  document.body.classList.add("busy");
  try {
    state = await step();
    showError("");
    draw();
    window.smearState = state; // what the page shows now (the browser tests read it)
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

const send = (action) => run(() => api("POST", `/api/tables/${tableId}/action`, { action }));
const goOn = () => run(() => api("POST", `/api/tables/${tableId}/continue`));

function remember(id) {
  tableId = id;
  if (id) {
    localStorage.setItem("smear-table", id);
    history.replaceState(null, "", `#table=${id}`);
  } else {
    localStorage.removeItem("smear-table");
    history.replaceState(null, "", "/");
  }
}

async function setup() {
  $("table").hidden = true;
  $("side").hidden = true;
  $("summary").hidden = true;
  $("setup").hidden = false;
  const data = await api("GET", "/api/agents");
  const list = $("agent-ids");
  list.innerHTML = "";
  for (const a of data.agents) {
    const o = document.createElement("option");
    o.value = a.id;
    list.appendChild(o);
  }
  $("agent-help").textContent = "Agent specs: " + data.agents.map((a) => a.usage).join(", ") + "; or file.py:Class.";
}

$("new-table").addEventListener("submit", (event) => {
  event.preventDefault();
  const f = new FormData(event.target);
  const rules = {
    kitty_size: Number(f.get("kitty_size")),
    stick_the_dealer: f.get("stick_the_dealer") === "on",
    high_low_in_play: f.get("high_low_in_play") === "on",
    win_only_on_made_bid: f.get("win_only_on_made_bid") === "on",
    defender_cap: f.get("defender_cap") ? Number(f.get("defender_cap")) : null,
    target_score: Number(f.get("target_score") || 15),
  };
  const body = { seat: Number(f.get("seat")), partner: f.get("partner"), opponents: f.get("opponents"), rules };
  run(async () => {
    const created = await api("POST", "/api/tables", body);
    remember(created.table);
    return created;
  });
});

$("abandon").addEventListener("click", async () => {
  try {
    await api("DELETE", `/api/tables/${tableId}`);
  } catch (e) {
    /* already gone */
  }
  remember(null);
  state = null;
  setup();
});

async function start() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("table");
  const id = fromHash || localStorage.getItem("smear-table");
  if (id) {
    try {
      state = await api("GET", `/api/tables/${id}`);
      remember(id);
      draw();
      window.smearState = state;
      return;
    } catch (e) {
      remember(null);
    }
  }
  setup();
}

start();
