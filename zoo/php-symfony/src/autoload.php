<?php
// Debian-style autoloading: the Symfony packages ship their own autoload.php
// under /usr/share/php; the application adds a small PSR-4 loader for App\.
require_once 'Symfony/Bundle/FrameworkBundle/autoload.php';
require_once 'Symfony/Component/Dotenv/autoload.php';

spl_autoload_register(static function (string $class): void {
    if (strncmp($class, 'App\\', 4) !== 0) {
        return;
    }
    $file = __DIR__.'/'.str_replace('\\', '/', substr($class, 4)).'.php';
    if (is_file($file)) {
        require $file;
    }
});
