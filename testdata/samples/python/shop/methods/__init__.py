"""Concrete payment methods."""

from shop.methods.card import Card, PremiumCard
from shop.methods.invoice import Invoice
from shop.methods.wallet import Wallet

__all__ = ["Card", "PremiumCard", "Invoice", "Wallet"]
