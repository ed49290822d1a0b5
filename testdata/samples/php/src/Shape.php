<?php

namespace Sample;

interface Shape
{
    public function area(): float;
}
