export * as util from "./util.js";
export * from "./versions.js";
