// Entry point: the app shell (header with search) and the client-side routes.

import "./styles.css";
import { h } from "./dom";
import { DatasetPage } from "./pages/dataset/DatasetPage";
import { FailuresPage } from "./pages/failures/FailuresPage";
import { HomePage } from "./pages/home/HomePage";
import { ImpactPage } from "./pages/impact/ImpactPage";
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
route("/trust", TrustPage);

const app = document.getElementById("app")!;
const outlet = h("main", { id: "outlet" });
app.replaceChildren(header(), outlet);
startRouter(outlet);
