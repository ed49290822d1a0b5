// Read the shop settings.

export interface Config {
  currency: string;
  taxPercent: number;
}

export function loadConfig(src: string): Config {
  return parseConfig(src);
}

function parseConfig(src: string): Config {
  const cfg: Config = { currency: "", taxPercent: 0 };
  for (const line of src.split("\n")) {
    const [key, value] = line.split("=");
    if (key === "currency") cfg.currency = value;
    if (key === "tax") cfg.taxPercent = Number(value);
  }
  validateConfig(cfg);
  return cfg;
}

function validateConfig(cfg: Config): void {
  if (!cfg.currency) throw new Error("config: currency is required");
  if (cfg.taxPercent < 0 || cfg.taxPercent > 100) throw new Error("config: tax out of range");
}
