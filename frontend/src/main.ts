// Entry point: the app shell (header with search) and the client-side routes.

import "./styles.css";
import { h } from "./dom";
import { AlertsPage } from "./pages/alerts/AlertsPage";
import { DatasetPage } from "./pages/dataset/DatasetPage";
import { DestinationsPage } from "./pages/destinations/DestinationsPage";
import { FailuresPage } from "./pages/failures/FailuresPage";
import { HomePage } from "./pages/home/HomePage";
import { ImpactPage } from "./pages/impact/ImpactPage";
import { IncidentPage } from "./pages/incidents/IncidentPage";
import { IncidentsPage } from "./pages/incidents/IncidentsPage";
import { LineagePage } from "./pages/lineage/LineagePage";
import { JobRunsPage } from "./pages/runs/JobRunsPage";
import { TrustPage } from "./pages/trust/TrustPage";
import { route, startRouter } from "./router";
import { header } from "./shell/header";

route("/", HomePage);
route("/lineage", LineagePage);
route("/dataset", DatasetPage);
route("/job", JobRunsPage);
route("/failures", FailuresPage);
route("/impact", ImpactPage);
route("/incidents", IncidentsPage);
route("/incident", IncidentPage);
route("/alerts", AlertsPage);
route("/destinations", DestinationsPage);
route("/trust", TrustPage);

const app = document.getElementById("app")!;
const outlet = h("main", { id: "outlet" });
app.replaceChildren(header(), outlet);
startRouter(outlet);
