import { HARDENING_SCENARIOS } from "./http_hardening_scenarios.ts";
import { nodeBundleTest } from "../testing/process_scenarios.ts";

nodeBundleTest("the service's HTTP hardening", HARDENING_SCENARIOS);
