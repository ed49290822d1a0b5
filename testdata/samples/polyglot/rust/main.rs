fn area(w: f64, h: f64) -> f64 {
    w * h
}

fn main() {
    let _a = area(2.0, 3.0);
    let _b = area(1.0);
}
