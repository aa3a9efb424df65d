import { listPaymentMethods } from "../../../lib/cloud/mod.ts";
import { group } from "../../framework/spec.ts";
import { listCommand } from "./common.ts";

const list = listCommand({
  summary: "list the account's payment methods",
  columns: [
    { header: "ID", value: "id" },
    { header: "TYPE", value: "type" },
    { header: "CARD", value: (m) => (m.creditCardEndsWith === undefined ? undefined : `…${m.creditCardEndsWith}`) },
    { header: "NAME ON CARD", value: "nameOnCard" },
    {
      header: "EXPIRES",
      value: (m) =>
        m.expirationMonth === undefined
          ? undefined
          : `${String(m.expirationMonth).padStart(2, "0")}/${m.expirationYear}`,
    },
  ],
  empty: "No payment methods",
  examples: ["ctl cloud payment-method list", "ctl cloud payment-method list -q '[0].id' --raw"],
  list: listPaymentMethods,
});

/** `ctl cloud payment-method …`. */
export default group("list the account's payment methods", { list });
