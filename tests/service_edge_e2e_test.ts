import { EDGE_SCENARIOS } from "./service_edge_scenarios.ts";
import { denoServerTests } from "./process_scenarios.ts";

denoServerTests(EDGE_SCENARIOS);
