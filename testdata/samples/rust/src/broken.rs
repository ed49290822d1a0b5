// A crate of its own (rust-project.json) whose call passes one argument too
// many.
pub fn twice(x: f64) -> f64 {
    x * 2.0
}

pub fn broken() -> f64 {
    let total: f64 = 1.5;
    twice(total, 1.0)
}
