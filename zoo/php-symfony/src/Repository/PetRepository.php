<?php

namespace App\Repository;

/**
 * Stores animals in a SQLite file (PHP keeps nothing in memory between requests).
 */
class PetRepository
{
    private $pdo;

    public function __construct(string $path)
    {
        $this->pdo = new \PDO('sqlite:'.$path);
        $this->pdo->setAttribute(\PDO::ATTR_ERRMODE, \PDO::ERRMODE_EXCEPTION);
        $this->pdo->setAttribute(\PDO::ATTR_DEFAULT_FETCH_MODE, \PDO::FETCH_ASSOC);
        $this->pdo->exec('PRAGMA busy_timeout = 5000');
        $this->pdo->exec('CREATE TABLE IF NOT EXISTS pets (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            category_id INTEGER NOT NULL,
            status TEXT NULL
        )');
    }

    public function findAll(int $limit, ?string $status = null): array
    {
        if (null !== $status) {
            $stmt = $this->pdo->prepare('SELECT * FROM pets WHERE status = :status ORDER BY id LIMIT :limit');
            $stmt->bindValue('status', $status);
        } else {
            $stmt = $this->pdo->prepare('SELECT * FROM pets ORDER BY id LIMIT :limit');
        }
        $stmt->bindValue('limit', $limit, \PDO::PARAM_INT);
        $stmt->execute();

        return array_map([$this, 'hydrate'], $stmt->fetchAll());
    }

    public function find(int $id): ?array
    {
        $stmt = $this->pdo->prepare('SELECT * FROM pets WHERE id = :id');
        $stmt->bindValue('id', $id, \PDO::PARAM_INT);
        $stmt->execute();
        $row = $stmt->fetch();

        return $row ? $this->hydrate($row) : null;
    }

    public function add(string $name, int $categoryId, ?string $status): array
    {
        $stmt = $this->pdo->prepare('INSERT INTO pets (name, category_id, status) VALUES (:name, :category_id, :status)');
        $stmt->bindValue('name', $name);
        $stmt->bindValue('category_id', $categoryId, \PDO::PARAM_INT);
        $stmt->bindValue('status', $status);
        $stmt->execute();

        return $this->find((int) $this->pdo->lastInsertId());
    }

    private function hydrate(array $row): array
    {
        $pet = [
            'id' => (int) $row['id'],
            'name' => $row['name'],
            'categoryId' => (int) $row['category_id'],
        ];
        if (null !== $row['status']) {
            $pet['status'] = $row['status'];
        }

        return $pet;
    }
}
