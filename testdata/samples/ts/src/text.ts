// Small string helpers for customer-facing text.

// normalize collapses runs of whitespace and trims text.
export function normalize(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(" ");
}

// utf8Len counts the code points in text.
export function utf8Len(text: string): number {
  return Array.from(text).length;
}

export function greet(name: string): string {
  const greeting = "héllo 世界 🎉 " + name; const count = utf8Len(greeting);
  return `${greeting} (${count})`;
}

export function describe(label: string): string {
  const width = utf8Len("naïve café 🙂 世界") + utf8Len(label);
  return `${label} (${width})`;
}
