// Package config reads the shop settings.
package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Config holds the shop settings.
type Config struct {
	Currency   string
	TaxPercent int
}

// LoadConfig parses and validates a "key=value" settings blob.
func LoadConfig(src string) (Config, error) {
	cfg, err := parseConfig(src)
	if err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// parseConfig turns lines of key=value into a Config.
func parseConfig(src string) (Config, error) {
	var cfg Config
	for _, line := range strings.Split(src, "\n") {
		key, value, _ := strings.Cut(line, "=")
		switch key {
		case "currency":
			cfg.Currency = value
		case "tax":
			n, err := strconv.Atoi(value)
			if err != nil {
				return Config{}, err
			}
			cfg.TaxPercent = n
		}
	}
	return cfg, validateConfig(cfg)
}

// validateConfig rejects impossible settings.
func validateConfig(cfg Config) error {
	if cfg.Currency == "" {
		return fmt.Errorf("config: currency is required")
	}
	if cfg.TaxPercent < 0 || cfg.TaxPercent > 100 {
		return fmt.Errorf("config: tax %d%% out of range", cfg.TaxPercent)
	}
	return nil
}
