<?php

namespace App;

use App\Controller\PetController;
use App\EventSubscriber\ApiKeySubscriber;
use App\EventSubscriber\ExceptionSubscriber;
use App\Repository\PetRepository;
use Symfony\Bundle\FrameworkBundle\FrameworkBundle;
use Symfony\Bundle\FrameworkBundle\Kernel\MicroKernelTrait;
use Symfony\Component\DependencyInjection\Loader\Configurator\ContainerConfigurator;
use Symfony\Component\HttpKernel\Kernel as BaseKernel;
use Symfony\Component\Routing\Loader\Configurator\RoutingConfigurator;

class Kernel extends BaseKernel
{
    use MicroKernelTrait;

    public function registerBundles(): iterable
    {
        yield new FrameworkBundle();
    }

    public function getProjectDir(): string
    {
        return \dirname(__DIR__);
    }

    public function getCacheDir(): string
    {
        // start.sh points this at its temporary folder (the code tree may be read-only)
        return $this->getVarDir().'/cache/'.$this->environment;
    }

    public function getLogDir(): string
    {
        return $this->getVarDir().'/log';
    }

    private function getVarDir(): string
    {
        return $_SERVER['APP_VAR_DIR'] ?? (getenv('APP_VAR_DIR') ?: $this->getProjectDir().'/var');
    }

    protected function configureContainer(ContainerConfigurator $container): void
    {
        $container->extension('framework', [
            'secret' => '%env(APP_SECRET)%',
        ]);

        $container->parameters()
            ->set('env(APP_SECRET)', 'pet-store-not-a-secret')
            ->set('env(DATABASE_PATH)', '%kernel.project_dir%/var/pets.sqlite');

        $services = $container->services()
            ->defaults()
                ->autowire()
                ->autoconfigure();

        $services->set(PetRepository::class)
            ->arg('$path', '%env(DATABASE_PATH)%');
        $services->set(PetController::class)
            ->tag('controller.service_arguments')
            ->public();
        $services->set(ApiKeySubscriber::class)
            ->arg('$apiKey', '%env(API_KEY)%');
        $services->set(ExceptionSubscriber::class);
    }

    protected function configureRoutes(RoutingConfigurator $routes): void
    {
        $routes->add('listPets', '/v1/pets')
            ->controller([PetController::class, 'list'])
            ->methods(['GET']);

        $routes->add('createPet', '/v1/pets')
            ->controller([PetController::class, 'create'])
            ->methods(['POST']);

        $routes->add('getPet', '/v1/pets/{petId}')
            ->controller([PetController::class, 'show'])
            ->requirements(['petId' => '\d+'])
            ->methods(['GET']);
    }
}
