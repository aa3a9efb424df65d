import { group, lazy } from "../../framework/spec.ts";

/** `ctl cloud …`: human commands for the cloud API. */
export default group("manage resources of the cloud API", {
  task: lazy("follow the cloud API's asynchronous operations", () => import("./task.ts")),
});
