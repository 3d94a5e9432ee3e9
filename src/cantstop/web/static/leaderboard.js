// The leaderboard page: every rated player and bot, each linking to their profile.
import { api } from "./api.js";
import { leaderRow, noneYet } from "./lists.js";

const leaders = await api("/api/players?limit=200");
document.getElementById("leaders").replaceChildren(...(leaders.length ? leaders.map(leaderRow) : [noneYet()]));
document.body.dataset.ready = "true";
