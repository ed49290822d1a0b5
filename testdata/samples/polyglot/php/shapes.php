<?php

namespace Poly;

function area(float $w, float $h): float
{
    return $w * $h;
}

echo area(2, 3) ;
echo area(1, 4;
