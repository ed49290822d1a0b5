import { util } from "./core/index.js";

function pick(): typeof util {
  return util;
}

export const next = pick().other(1);
