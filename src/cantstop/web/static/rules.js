// The rules page: the tour can be taken again from here.
import { startTour } from "./tour.js";

document.getElementById("tour-start").addEventListener("click", startTour);
document.body.dataset.ready = "true";
