import { HARDENING_SCENARIOS } from "./http_hardening_scenarios.ts";
import { denoServerTests } from "./process_scenarios.ts";

denoServerTests(HARDENING_SCENARIOS);
