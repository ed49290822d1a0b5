<?php

namespace Sample;

class Rect implements Shape
{
    public function __construct(private float $width, private float $height)
    {
    }

    public function area(): float
    {
        return $this->width * $this->height;
    }
}

function total_area(Shape ...$shapes): float
{
    $sum = 0.0;
    foreach ($shapes as $shape) {
        $sum += $shape->area();
    }
    return $sum;
}
