import { HARDENING_SCENARIOS } from "./http_hardening_scenarios.ts";
import { denoServerTests } from "../testing/process_scenarios.ts";

denoServerTests(HARDENING_SCENARIOS);
