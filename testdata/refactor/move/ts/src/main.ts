import * as geometry from "./geometry";
import { total } from "./calc";
import { circle, line } from "./report";

export const summary = [total(1, 2), geometry.area(3), line(2), circle(new geometry.Circle(1))];
