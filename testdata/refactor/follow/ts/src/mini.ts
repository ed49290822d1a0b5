import * as util from "./core/util.js";

export const quadrupled = util.lazy(util.lazy(1));
