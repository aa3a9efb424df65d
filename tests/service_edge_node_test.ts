import { EDGE_SCENARIOS } from "./service_edge_scenarios.ts";
import { nodeBundleTest } from "../testing/process_scenarios.ts";

nodeBundleTest("the service's edge scenarios", EDGE_SCENARIOS);
