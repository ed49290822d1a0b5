import { util } from "./core/index.js";

export const doubled = util.lazy(1);
