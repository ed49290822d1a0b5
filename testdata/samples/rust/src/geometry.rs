pub struct Rect {
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn new(width: f64, height: f64) -> Rect {
        Rect { width, height }
    }

    pub fn area(&self) -> f64 {
        self.width * self.height
    }
}

pub fn total_area(a: &Rect, b: &Rect) -> f64 {
    a.area() + b.area()
}
