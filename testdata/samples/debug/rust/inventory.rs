// The Rust debugger's test subject (dap tests): built with rustc -g by the
// test, run under lldb-dap. Tests find lines by their "bp:" markers.

struct Item {
    name: &'static str,
    qty: i32,
}

fn restock(items: &mut [Item], add: i32) -> i32 {
    let mut total = 0;
    for item in items.iter_mut() {
        item.qty += add; // bp:loop
        total += item.qty;
    }
    total // bp:return
}

fn twice(x: i32) -> i32 {
    let y = x * 2; // bp:double
    y
}

fn main() {
    let mut items = [Item { name: "pen", qty: 3 }, Item { name: "pad", qty: 7 }];
    let total = restock(&mut items, 2); // bp:call
    let doubled = twice(total); // bp:after
    println!("total {} double {} first {}", total, doubled, items[0].name);
    eprintln!("inventory: done");
    std::process::exit(3);
}
