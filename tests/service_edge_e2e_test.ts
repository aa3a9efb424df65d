import { EDGE_SCENARIOS } from "./service_edge_scenarios.ts";
import { denoServerTests } from "../testing/process_scenarios.ts";

denoServerTests(EDGE_SCENARIOS);
