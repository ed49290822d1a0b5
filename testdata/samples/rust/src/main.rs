// A crate described by rust-project.json (no cargo); no std items are used,
// so it needs no sysroot sources.
mod geometry;

use geometry::{total_area, Rect};

fn main() {
    let wide = Rect::new(2.0, 3.0);
    let tall = Rect::new(1.0, 4.0);
    let total = total_area(&wide, &tall);
    let _double = total * 2.0;
}
