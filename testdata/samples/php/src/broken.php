<?php

namespace Sample;

function broken(): float
{
    return total_area(new Rect(1, 2) ;
}
