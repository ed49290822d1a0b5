<?php

namespace Sample;

require_once __DIR__ . '/Shape.php';
require_once __DIR__ . '/Rect.php';

$shapes = [new Rect(2, 3), new Rect(1, 4)];
echo total_area(...$shapes), "\n";
